import { storeConfig } from '../config.js';

/** Where user pictures live: an S3 bucket when deployed, files under the data directory locally. */
export interface PictureStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
}

export const pictureKey = (orgId: string, userId: string) => `pictures/${orgId}/${userId}`;

let configured: PictureStore | undefined;

export const pictureStore = async (): Promise<PictureStore> => {
  if (configured) return configured;
  const { pictureBucket, dataDirectory } = storeConfig();
  if (pictureBucket) {
    const { S3PictureStore } = await import('./s3-picture-store.js');
    configured = new S3PictureStore(pictureBucket);
  } else {
    const { FilePictureStore } = await import('./file-picture-store.js');
    configured = new FilePictureStore(dataDirectory);
  }
  return configured;
};
