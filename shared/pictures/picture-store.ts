import { perStoreSettings } from '../config.js';

/** Where user pictures live: an S3 bucket when deployed, files under the data directory locally. */
export interface PictureStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
}

export const pictureKey = (orgId: string, userId: string) => `pictures/${orgId}/${userId}`;

const configured = perStoreSettings(async ({ pictureBucket, dataDirectory }): Promise<PictureStore> => {
  if (pictureBucket) {
    const { S3PictureStore } = await import('./s3-picture-store.js');
    return new S3PictureStore(pictureBucket);
  }
  const { FilePictureStore } = await import('./file-picture-store.js');
  return new FilePictureStore(dataDirectory);
});

export const pictureStore = (): Promise<PictureStore> => configured();
