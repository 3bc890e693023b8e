import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The project's ignored scratch folder; tests leave nothing in it. */
export const PROJECT_TEMP = fileURLToPath(new URL('../../.tmp', import.meta.url));

/** A new folder `.tmp/<prefix>-XXXXXX`; whoever asks for it removes it with `removeTempDir`. */
export const makeTempDir = (prefix: string): string => {
  mkdirSync(PROJECT_TEMP, { recursive: true });
  return mkdtempSync(join(PROJECT_TEMP, `${prefix}-`));
};

export const removeTempDir = (path: string): void => rmSync(path, { recursive: true, force: true });

/** Makes `.tmp/<prefix>-XXXXXX` folders on demand and removes them after this file's tests. */
export const useTempDirs = (prefix: string): (() => string) => {
  const made: string[] = [];
  afterAll(() => {
    for (const path of made.splice(0)) removeTempDir(path);
  });
  return () => {
    const path = makeTempDir(prefix);
    made.push(path);
    return path;
  };
};
