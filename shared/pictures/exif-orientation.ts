import { concatBytes, text, u16be, u16le, u32be, u32le } from './container-bytes.js';

/**
 * The Exif Orientation tag (0x0112) is the one thing of a picture's Exif that changes how it is
 * shown (browsers rotate by it; most portrait phone photos are stored sideways), so it is carried
 * over alone when the rest of the Exif goes.
 */
const ORIENTATION_TAG = 0x0112;
const SHORT = 3;
export const EXIF_PREFIX = Uint8Array.from([0x45, 0x78, 0x69, 0x66, 0, 0]); // "Exif\0\0"

/** The Orientation in a TIFF structure (Exif without its "Exif\0\0"), if there and not 1 (as stored). */
export const exifOrientation = (bytes: Uint8Array, from: number, to: number): number | undefined => {
  const tiff = bytes.subarray(from, to);
  const order = text(tiff, 0, 2);
  if (order !== 'MM' && order !== 'II') return undefined;
  const u16 = order === 'MM' ? u16be : u16le;
  const u32 = order === 'MM' ? u32be : u32le;
  if (u16(tiff, 2) !== 0x2a) return undefined;
  const ifd = u32(tiff, 4);
  const count = u16(tiff, ifd);
  for (let entry = ifd + 2, index = 0; index < count && entry + 12 <= tiff.length; index++, entry += 12) {
    if (u16(tiff, entry) !== ORIENTATION_TAG) continue;
    const value = u16(tiff, entry + 8);
    const valid = u16(tiff, entry + 2) === SHORT && u32(tiff, entry + 4) === 1 && value >= 2 && value <= 8;
    return valid ? value : undefined;
  }
  return undefined;
};

/** A big-endian TIFF structure whose IFD0 holds the Orientation alone (no other IFD). */
// biome-ignore format: one TIFF field a line
export const orientationExif = (orientation: number) => concatBytes([
  0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08, // "MM", 42, IFD0 at 8
  0x00, 0x01, // one entry
  0x01, 0x12, 0x00, SHORT, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, // no next IFD
]);
