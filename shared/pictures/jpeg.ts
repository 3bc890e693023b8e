import {
  concatBytes,
  type PictureProblem,
  problem,
  rangesBuilder,
  text,
  u16be,
  type Walk,
} from './container-bytes.js';
import { EXIF_PREFIX, exifOrientation, orientationExif } from './exif-orientation.js';

// JPEG: Exif and XMP (APP1), IPTC (APP13), other makers' APPn and comments go. JFIF (APP0), the
// ICC colour profile (APP2) and Adobe's (APP14, needed to decode CMYK) stay.
const isJpegMetadata = (marker: number) =>
  (marker >= 0xe1 && marker <= 0xef && marker !== 0xe2 && marker !== 0xee) || marker === 0xfe;
// Start of frame: C0-CF but DHT (C4), JPG (C8) and DAC (CC).
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
const isRestart = (marker: number) => marker >= 0xd0 && marker <= 0xd7;

/** Where the scan data after an SOS header ends: the 0xFF of the next marker, or the end of data. */
const endOfScan = (bytes: Uint8Array, from: number) => {
  let at = from;
  while (at < bytes.length) {
    const ff = bytes.indexOf(0xff, at);
    if (ff === -1 || ff + 1 >= bytes.length) return bytes.length;
    const next = bytes[ff + 1] as number;
    if (next === 0x00 || isRestart(next)) at = ff + 2;
    else if (next === 0xff) at = ff + 1;
    else return ff;
  }
  return bytes.length;
};

const orientationSegment = (orientation: number) => {
  const payload = concatBytes(EXIF_PREFIX, orientationExif(orientation));
  return concatBytes([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff], payload);
};

export const walkJpeg = (bytes: Uint8Array): Walk | PictureProblem => {
  const ranges = rangesBuilder(0);
  let size: { width: number; height: number } | undefined;
  let scanned = false;
  let orientation: number | undefined;
  let exifSeen = false;
  let orientationAt = 2; // right after SOI, or after a JFIF segment that follows it
  const finished = (end: number) => {
    if (!size || !scanned) return problem('the JPEG has no image data');
    ranges.endAt(end);
    const insert = orientation ? { at: orientationAt, bytes: orientationSegment(orientation) } : undefined;
    return { keep: ranges.keep, ...size, insert };
  };
  let at = 2;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) {
      // Stray bytes between segments: decoders skip to the next marker, so do we (dropping them).
      const next = bytes.indexOf(0xff, at);
      ranges.drop(at, next === -1 ? bytes.length : next);
      if (next === -1) break;
      at = next;
    }
    let markerAt = at + 1;
    while (bytes[markerAt] === 0xff) markerAt++; // fill bytes
    const marker = bytes[markerAt];
    if (marker === undefined) break;
    if (marker === 0x00) {
      ranges.drop(at, markerAt + 1); // not a marker: stray bytes too
      at = markerAt + 1;
      continue;
    }
    if (marker === 0xd8) return problem('a JPEG marker is invalid');
    if (marker === 0xd9) return finished(markerAt + 1); // anything after the end marker goes
    if (isRestart(marker) || marker === 0x01) {
      at = markerAt + 1;
      continue;
    }
    const length = u16be(bytes, markerAt + 1);
    const end = markerAt + 1 + length;
    if (length < 2 || end > bytes.length) return problem('a JPEG segment runs past the end of the file');
    if (isJpegMetadata(marker)) ranges.drop(at, end);
    if (marker === 0xe0 && at === 2) orientationAt = end;
    if (marker === 0xe1 && !exifSeen && text(bytes, markerAt + 3, 6) === 'Exif\0\0') {
      exifSeen = true; // the first Exif is the one decoders read
      orientation = exifOrientation(bytes, markerAt + 9, end);
    }
    if (isStartOfFrame(marker) && !size) {
      if (length < 8) return problem('the JPEG frame header is too short');
      size = { height: u16be(bytes, markerAt + 4), width: u16be(bytes, markerAt + 6) };
    }
    at = end;
    if (marker === 0xda) {
      if (!size) return problem('the JPEG has image data before its frame header');
      scanned = true;
      at = endOfScan(bytes, end);
    }
  }
  // Data that ends without its end marker is shown as far as it goes (a truncated upload).
  return finished(bytes.length);
};
