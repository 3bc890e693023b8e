import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../shared/api/openapi.js';
import { PROJECT_TEMP } from '../support/temp-dir.js';

/**
 * The OpenAPI document under third-party linters: Redocly's recommended rules, and Spectral with
 * the OWASP API Security Top 10 ruleset: every limit the service enforces is stated, so only
 * what the spec itself decides is left (ACCEPTED).
 */

const directory = join(PROJECT_TEMP, `openapi-lint-${process.pid}`);
const documentFile = join(directory, 'openapi.json');
const rulesetFile = join(directory, '.spectral.yaml');

beforeAll(() => {
  mkdirSync(directory, { recursive: true });
  writeFileSync(documentFile, JSON.stringify(createOpenApiDocument('https://idp.acme.dev')));
  writeFileSync(rulesetFile, 'extends:\n  - "@stoplight/spectral-owasp-ruleset"\n');
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A linter's JSON report (both exit non-zero when they find errors). */
const report = (command: string, args: string[]): string => {
  try {
    return execFileSync(join('node_modules', '.bin', command), args, {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '');
  }
};

/**
 * Findings that stay, and why. The spec's per-second throttle sends no rate-limit headers (the
 * document says so); two of the spec's shapes are maps (string -> value), which this rule refuses
 * outright although `maxProperties` bounds them (the rule's own advice; the companion rule
 * constrained-additionalProperties, which asks for it, passes).
 */
const ACCEPTED = (finding: { code: string; path: string[] }): boolean =>
  finding.code === 'owasp:api4:2023-rate-limit' ||
  (finding.code === 'owasp:api3:2023-no-additionalProperties' &&
    ['SetAdditionalPropertiesRequest', 'MinePermissions'].includes(finding.path[2] ?? ''));

describe('the OpenAPI document under linters', () => {
  it('passes redocly lint with no warning but the missing license', () => {
    const problems = (
      JSON.parse(report('redocly', ['lint', documentFile, '--format=json'])) as {
        problems: { ruleId: string; message: string }[];
      }
    ).problems.map((problem) => `${problem.ruleId}: ${problem.message}`);
    // The repository carries no license yet, so the document names none (a decision for its owners).
    expect(problems).toEqual(['info-license: Info object should contain `license` field.']);
  });

  it("has no OWASP finding but the rate-limit headers and the spec's two maps", () => {
    const findings = JSON.parse(
      report('spectral', ['lint', documentFile, '--ruleset', rulesetFile, '-f', 'json']),
    ) as { code: string; path: string[] }[];
    expect(findings.some((finding) => finding.code === 'owasp:api4:2023-rate-limit')).toBe(true);
    const unexpected = findings
      .filter((finding) => !ACCEPTED(finding))
      .map((finding) => `${finding.code} at ${finding.path.join('.')}`);
    expect(unexpected).toEqual([]);
  });
});
