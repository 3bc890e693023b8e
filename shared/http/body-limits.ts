/** The largest JSON or form body any operation accepts (pictures have their own limit). */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
