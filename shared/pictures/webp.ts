import {
  concatBytes,
  type PictureProblem,
  problem,
  rangesBuilder,
  text,
  u16le,
  u24le,
  u32le,
  type Walk,
} from './container-bytes.js';
import { EXIF_PREFIX, exifOrientation, orientationExif } from './exif-orientation.js';

// Exif, XMP and content credentials (C2PA, which can hold an Exif assertion) go.
const WEBP_METADATA = new Set(['EXIF', 'XMP ', 'C2PA']);
const VP8X_EXIF_FLAG = 0x08;
const VP8X_XMP_FLAG = 0x04;

/** The dimensions a VP8X (canvas), VP8 (lossy) or VP8L (lossless) chunk's data starts with. */
const webpSize = (type: string, bytes: Uint8Array, data: number, length: number) => {
  if (type === 'VP8X' && length >= 10)
    return { width: u24le(bytes, data + 4) + 1, height: u24le(bytes, data + 7) + 1 };
  if (type === 'VP8 ' && length >= 10 && u24le(bytes, data + 3) === 0x2a019d)
    return { width: u16le(bytes, data + 6) & 0x3fff, height: u16le(bytes, data + 8) & 0x3fff };
  if (type === 'VP8L' && length >= 5 && bytes[data] === 0x2f) {
    const bits = u32le(bytes, data + 1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return undefined;
};

/** The Orientation of an EXIF chunk's data (some writers start it with "Exif\0\0"). */
const chunkOrientation = (bytes: Uint8Array, data: number, end: number) =>
  exifOrientation(bytes, text(bytes, data, 6) === 'Exif\0\0' ? data + EXIF_PREFIX.length : data, end);

const exifChunk = (orientation: number) => {
  const data = orientationExif(orientation); // an even length: no padding
  return concatBytes([0x45, 0x58, 0x49, 0x46, data.length, 0, 0, 0], data);
};

export const walkWebp = (bytes: Uint8Array): Walk | PictureProblem => {
  const riffEnd = 8 + u32le(bytes, 4);
  if (riffEnd < 12 || riffEnd > bytes.length) return problem('the WebP RIFF size does not match the file');
  const ranges = rangesBuilder(0);
  let size: { width: number; height: number } | undefined;
  let hasImage = false;
  let insert: Walk['insert'];
  let exifSeen = false;
  let at = 12;
  while (at < riffEnd) {
    if (at + 8 > riffEnd) return problem('a WebP chunk runs past the end of the file');
    const type = text(bytes, at, 4);
    const length = u32le(bytes, at + 4);
    const end = at + 8 + length + (length % 2); // chunks are padded to an even length
    if (end > riffEnd) return problem('a WebP chunk runs past the end of the file');
    if (at === 12) size = webpSize(type, bytes, at + 8, length);
    if (!size) return problem('the WebP does not start with a VP8X, VP8 or VP8L header');
    if (type === 'VP8 ' || type === 'VP8L' || type === 'ANMF') hasImage = true;
    if (WEBP_METADATA.has(type)) ranges.drop(at, end);
    // Only an extended WebP (VP8X first) has an EXIF chunk decoders read; it keeps its place.
    if (type === 'EXIF' && !exifSeen && text(bytes, 12, 4) === 'VP8X') {
      exifSeen = true;
      const orientation = chunkOrientation(bytes, at + 8, at + 8 + length);
      if (orientation) insert = { at, bytes: exifChunk(orientation) };
    }
    at = end;
  }
  if (!size || !hasImage) return problem('the WebP has no image data');
  ranges.endAt(riffEnd); // anything after the RIFF chunk goes
  const dropped = insert ? VP8X_XMP_FLAG : VP8X_EXIF_FLAG | VP8X_XMP_FLAG;
  const finish = (cleaned: Uint8Array) => {
    new DataView(cleaned.buffer).setUint32(4, cleaned.length - 8, true);
    if (text(cleaned, 12, 4) === 'VP8X') cleaned[20] = (cleaned[20] as number) & ~dropped;
  };
  return { keep: ranges.keep, ...size, insert, finish };
};
