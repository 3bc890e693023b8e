import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest, payloadTooLarge } from '../errors.js';

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

const parser = httpJsonBodyParser();

/** Size limit and a clear 400 for a missing body, then Middy's JSON parser (415 on wrong type). */
export const jsonBody = (): MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: async (request) => {
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === '') throw badRequest('A JSON request body is required');
    const bytes = isBase64Encoded ? Buffer.from(body, 'base64').byteLength : Buffer.byteLength(body);
    if (bytes > MAX_JSON_BODY_BYTES) throw payloadTooLarge('The JSON body is larger than 1 MiB');
    // biome-ignore lint/suspicious/noExplicitAny: Middy's parser is typed for its own event union
    await parser.before?.(request as any);
  },
});
