import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { PROJECT_TEMP } from './temp-dir.js';

/**
 * Writes `files` (name -> source) into a folder of the project's `.tmp/` and type-checks the
 * first one strictly, as a consumer's program would be; answers the compiler's complaints. The
 * folder (inside the project, so `idp/client` resolves to this package) is removed afterwards.
 */
export const typeCheckProgram = (folder: string, files: Record<string, string>, types: string[] = []) => {
  const directory = join(PROJECT_TEMP, `${folder}-${process.pid}`);
  mkdirSync(directory, { recursive: true });
  try {
    for (const [name, source] of Object.entries(files)) writeFileSync(join(directory, name), source);
    return complaintsAbout(join(directory, Object.keys(files)[0] as string), types);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
};

const complaintsAbout = (file: string, types: string[]) => {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
};
