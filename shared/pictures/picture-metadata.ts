import type { PictureProblem, Walk } from './container-bytes.js';
import { walkGif } from './gif.js';
import { detectImageType, type ImageType } from './image-type.js';
import { walkJpeg } from './jpeg.js';
import { walkPng } from './png.js';
import { walkWebp } from './webp.js';

/**
 * Removes what a camera or editor writes about a picture (Exif with its GPS position, XMP, IPTC,
 * comments, content credentials) before the picture is served to the whole organization, and
 * reads its dimensions. Of the Exif, only the orientation is written back (it turns the picture).
 *
 * The container is walked (one file a format) and every other byte copied as it came: no pixel is
 * decoded or re-encoded. No well-kept JavaScript library does this for the four formats without a
 * native image library (whose binaries the offline build cannot bundle), so it is written here.
 * Nothing is read out of bounds and every loop moves forward: a malformed upload only gives a
 * problem.
 */
export type CleanedPicture = { bytes: Uint8Array; width: number; height: number };
export type { PictureProblem };

export const cleanPicture = (bytes: Uint8Array, type: ImageType): CleanedPicture | PictureProblem => {
  if (detectImageType(bytes) !== type) return { problem: `the file does not start as ${type} does` };
  const walked = WALKERS[type](bytes);
  if ('problem' in walked) return walked;
  const { width, height, finish } = walked;
  const pieces = withInsert(bytes, walked);
  const cleaned = new Uint8Array(pieces.reduce((total, piece) => total + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    cleaned.set(piece, offset);
    offset += piece.length;
  }
  finish?.(cleaned);
  return { bytes: cleaned, width, height };
};

/** The kept ranges' bytes, with the inserted bytes before the first kept byte at or after its offset. */
const withInsert = (bytes: Uint8Array, { keep, insert }: Walk) => {
  const pieces: Uint8Array[] = [];
  let inserted = !insert;
  for (const [start, end] of keep) {
    if (insert && !inserted && insert.at < end) {
      const at = Math.max(start, insert.at);
      pieces.push(bytes.subarray(start, at), insert.bytes);
      pieces.push(bytes.subarray(at, end));
      inserted = true;
    } else pieces.push(bytes.subarray(start, end));
  }
  if (insert && !inserted) pieces.push(insert.bytes);
  return pieces;
};

const WALKERS: Record<ImageType, (bytes: Uint8Array) => Walk | PictureProblem> = {
  'image/jpeg': walkJpeg,
  'image/png': walkPng,
  'image/gif': walkGif,
  'image/webp': walkWebp,
};
