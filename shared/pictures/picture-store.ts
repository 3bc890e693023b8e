/** Where user pictures live: an S3 bucket when deployed, files under the data directory locally. */
export interface PictureStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
}

export const pictureKey = (orgId: string, userId: string) => `pictures/${orgId}/${userId}`;

let configured: PictureStore | undefined;

export const pictureStore = async (): Promise<PictureStore> => {
  if (configured) return configured;
  if (process.env.IDP_PICTURE_BUCKET) {
    const { S3PictureStore } = await import('./s3-picture-store.js');
    configured = new S3PictureStore(process.env.IDP_PICTURE_BUCKET);
  } else {
    const { FilePictureStore } = await import('./file-picture-store.js');
    configured = new FilePictureStore(process.env.IDP_DATA_DIR ?? '.data');
  }
  return configured;
};
