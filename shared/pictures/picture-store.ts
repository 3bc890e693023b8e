import { perStoreSettings } from '../config.js';
import { logger } from '../http/logger.js';

/**
 * Where user pictures live: an S3 bucket when deployed, files under the data directory locally.
 * Each upload is a version of its own, which the user's record names: the picture served is the
 * one the record (and its audit record) say, whatever a failed or concurrent upload stored since.
 */
export interface PictureStore {
  /** Stores a new version of the picture at `key` and answers its id (S3's VersionId). */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<string>;
  /** That version of the picture at `key`, or its latest without one (records from before versions). */
  get(key: string, version?: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
  /** Takes the picture at `key` away (S3 keeps its versions for NONCURRENT_PICTURE_DAYS). */
  delete(key: string): Promise<void>;
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

/**
 * Takes a user's picture out of the store once their record no longer names it (a directory's
 * DELETE), best effort: bytes left by a failure are shown to nobody, and the log says so.
 */
export const removePicture = async (orgId: string, userId: string): Promise<void> => {
  try {
    await (await pictureStore()).delete(pictureKey(orgId, userId));
  } catch (error) {
    logger.warn('picture not removed', { organizationId: orgId, userId, error: (error as Error).name });
  }
};
