import { detectImageType, type ImageType } from './image-type.js';

/**
 * Removes what a camera or editor writes about a picture (Exif with its GPS position, XMP, IPTC,
 * comments) before the picture is served to the whole organization, and reads its dimensions.
 *
 * The container is walked strictly and every other byte copied as it came: no pixel is decoded
 * or re-encoded. No well-kept JavaScript library does this for the four formats without a native
 * image library (whose binaries the offline build cannot bundle), so it is written here. Nothing
 * is read out of bounds and every loop moves forward: a malformed upload only gives a problem.
 */
export type CleanedPicture = { bytes: Uint8Array; width: number; height: number };
export type PictureProblem = { problem: string };

export const cleanPicture = (bytes: Uint8Array, type: ImageType): CleanedPicture | PictureProblem => {
  if (detectImageType(bytes) !== type) return problem(`the file does not start as ${type} does`);
  const walked = WALKERS[type](bytes);
  if ('problem' in walked) return walked;
  const { keep, width, height, finish } = walked;
  const cleaned = new Uint8Array(keep.reduce((total, [start, end]) => total + end - start, 0));
  let offset = 0;
  for (const [start, end] of keep) {
    cleaned.set(bytes.subarray(start, end), offset);
    offset += end - start;
  }
  finish?.(cleaned);
  return { bytes: cleaned, width, height };
};

/** The byte ranges to copy (in order), the dimensions, and any change the copy needs after. */
type Walk = { keep: Range[]; width: number; height: number; finish?: (cleaned: Uint8Array) => void };
type Range = [start: number, end: number];

const problem = (text: string): PictureProblem => ({ problem: text });

const u16be = (bytes: Uint8Array, at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
const u16le = (bytes: Uint8Array, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
const u24le = (bytes: Uint8Array, at: number) => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16);
const u32be = (bytes: Uint8Array, at: number) => u16be(bytes, at) * 0x10000 + u16be(bytes, at + 2);
const u32le = (bytes: Uint8Array, at: number) => u16le(bytes, at) + u16le(bytes, at + 2) * 0x10000;
const text = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length));

/** Collects the ranges to copy: everything from the start but the dropped ranges. */
const rangesBuilder = (from: number) => {
  const keep: Range[] = [];
  let copyFrom = from;
  return {
    keep,
    drop: (start: number, end: number) => {
      if (start > copyFrom) keep.push([copyFrom, start]);
      copyFrom = end;
    },
    endAt: (end: number) => {
      if (end > copyFrom) keep.push([copyFrom, end]);
    },
  };
};

// JPEG: Exif and XMP (APP1), IPTC (APP13), other makers' APPn and comments go. JFIF (APP0), the
// ICC colour profile (APP2) and Adobe's (APP14, needed to decode CMYK) stay.
const isJpegMetadata = (marker: number) =>
  (marker >= 0xe1 && marker <= 0xef && marker !== 0xe2 && marker !== 0xee) || marker === 0xfe;
// Start of frame: C0-CF but DHT (C4), JPG (C8) and DAC (CC).
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
const isRestart = (marker: number) => marker >= 0xd0 && marker <= 0xd7;

/** Where the scan data after an SOS header ends: the 0xFF of the next marker, or -1. */
const endOfScan = (bytes: Uint8Array, from: number) => {
  let at = from;
  while (at < bytes.length) {
    const ff = bytes.indexOf(0xff, at);
    if (ff === -1 || ff + 1 >= bytes.length) return -1;
    const next = bytes[ff + 1] as number;
    if (next === 0x00 || isRestart(next)) at = ff + 2;
    else if (next === 0xff) at = ff + 1;
    else return ff;
  }
  return -1;
};

const walkJpeg = (bytes: Uint8Array): Walk | PictureProblem => {
  const ranges = rangesBuilder(0);
  let size: { width: number; height: number } | undefined;
  let scanned = false;
  let at = 2;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) return problem('a JPEG segment does not start with a marker');
    let markerAt = at + 1;
    while (bytes[markerAt] === 0xff) markerAt++; // fill bytes
    const marker = bytes[markerAt];
    if (marker === undefined || marker === 0x00 || marker === 0xd8)
      return problem('a JPEG marker is invalid');
    if (marker === 0xd9) {
      if (!size || !scanned) return problem('the JPEG has no image data');
      ranges.endAt(markerAt + 1); // anything after the end marker goes
      return { keep: ranges.keep, ...size };
    }
    if (isRestart(marker) || marker === 0x01) {
      at = markerAt + 1;
      continue;
    }
    const length = u16be(bytes, markerAt + 1);
    const end = markerAt + 1 + length;
    if (length < 2 || end > bytes.length) return problem('a JPEG segment runs past the end of the file');
    if (isJpegMetadata(marker)) ranges.drop(at, end);
    if (isStartOfFrame(marker) && !size) {
      if (length < 8) return problem('the JPEG frame header is too short');
      size = { height: u16be(bytes, markerAt + 4), width: u16be(bytes, markerAt + 6) };
    }
    at = end;
    if (marker === 0xda) {
      if (!size) return problem('the JPEG has image data before its frame header');
      scanned = true;
      at = endOfScan(bytes, end);
      if (at === -1) return problem('the JPEG ends before its end marker');
    }
  }
  return problem('the JPEG ends before its end marker');
};

const PNG_METADATA = new Set(['tEXt', 'zTXt', 'iTXt', 'eXIf', 'tIME']);

const walkPng = (bytes: Uint8Array): Walk | PictureProblem => {
  if (u32be(bytes, 8) !== 13 || text(bytes, 12, 4) !== 'IHDR' || bytes.length < 33)
    return problem('the PNG does not start with its header chunk');
  const ranges = rangesBuilder(0);
  let hasData = false;
  let at = 8;
  while (at + 12 <= bytes.length) {
    const length = u32be(bytes, at);
    const type = text(bytes, at + 4, 4);
    const end = at + 12 + length; // length, type, data, CRC
    if (!/^[A-Za-z]{4}$/.test(type)) return problem('a PNG chunk type is invalid');
    if (end > bytes.length) return problem('a PNG chunk runs past the end of the file');
    if (PNG_METADATA.has(type)) ranges.drop(at, end);
    if (type === 'IDAT') hasData = true;
    if (type === 'IEND') {
      if (!hasData) return problem('the PNG has no image data');
      ranges.endAt(end); // anything after IEND goes
      return { keep: ranges.keep, width: u32be(bytes, 16), height: u32be(bytes, 20) };
    }
    at = end;
  }
  return problem('the PNG ends before its IEND chunk');
};

/** Where a GIF's chain of data sub-blocks (each a length byte, then data; 0 ends) ends, or -1. */
const endOfSubBlocks = (bytes: Uint8Array, from: number) => {
  let at = from;
  while (at < bytes.length) {
    const length = bytes[at] as number;
    if (length === 0) return at + 1;
    at += 1 + length;
  }
  return -1;
};

const colourTableLength = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
// Application extensions that only make an animation loop; any other (XMP among them) goes.
const LOOPING = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0']);

const walkGif = (bytes: Uint8Array): Walk | PictureProblem => {
  const ranges = rangesBuilder(0);
  let hasImage = false;
  let at = 13 + colourTableLength(bytes[10] ?? 0); // header, logical screen, global colour table
  while (at < bytes.length) {
    const block = bytes[at];
    if (block === 0x3b) {
      if (!hasImage) return problem('the GIF has no image');
      ranges.endAt(at + 1); // anything after the trailer goes
      return { keep: ranges.keep, width: u16le(bytes, 6), height: u16le(bytes, 8) };
    }
    let end: number;
    if (block === 0x2c) {
      hasImage = true;
      // Descriptor (10 bytes), local colour table, LZW minimum code size, data sub-blocks.
      end = endOfSubBlocks(bytes, at + 10 + colourTableLength(bytes[at + 9] ?? 0) + 1);
    } else if (block === 0x21) {
      const label = bytes[at + 1];
      end = endOfSubBlocks(bytes, at + 2);
      const isLooping = bytes[at + 2] === 11 && LOOPING.has(text(bytes, at + 3, 11));
      if (end !== -1 && (label === 0xfe || (label === 0xff && !isLooping))) ranges.drop(at, end);
    } else return problem('a GIF block is invalid');
    if (end === -1) return problem('a GIF block runs past the end of the file');
    at = end;
  }
  return problem('the GIF ends before its trailer');
};

const WEBP_METADATA = new Set(['EXIF', 'XMP ']);
const VP8X_EXIF_AND_XMP_FLAGS = 0x08 | 0x04;

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

const walkWebp = (bytes: Uint8Array): Walk | PictureProblem => {
  const riffEnd = 8 + u32le(bytes, 4);
  if (riffEnd < 12 || riffEnd > bytes.length) return problem('the WebP RIFF size does not match the file');
  const ranges = rangesBuilder(0);
  let size: { width: number; height: number } | undefined;
  let hasImage = false;
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
    at = end;
  }
  if (!size || !hasImage) return problem('the WebP has no image data');
  ranges.endAt(riffEnd); // anything after the RIFF chunk goes
  const finish = (cleaned: Uint8Array) => {
    new DataView(cleaned.buffer).setUint32(4, cleaned.length - 8, true);
    if (text(cleaned, 12, 4) === 'VP8X') cleaned[20] = (cleaned[20] as number) & ~VP8X_EXIF_AND_XMP_FLAGS;
  };
  return { keep: ranges.keep, ...size, finish };
};

const WALKERS: Record<ImageType, (bytes: Uint8Array) => Walk | PictureProblem> = {
  'image/jpeg': walkJpeg,
  'image/png': walkPng,
  'image/gif': walkGif,
  'image/webp': walkWebp,
};
