import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../shared/api/openapi.js';
import { PROJECT_TEMP } from '../support/temp-dir.js';

/**
 * The OpenAPI document under third-party linters: Redocly's strict recommended rules plus the
 * ones generators for other languages lean on (a description and a declared tag on every
 * operation, described tags, a license with its URL), and Spectral with the OWASP API Security
 * Top 10 ruleset: every limit the service enforces is stated, so only what the spec itself
 * decides is left (ACCEPTED).
 */

const directory = join(PROJECT_TEMP, `openapi-lint-${process.pid}`);
const documentFile = join(directory, 'openapi.json');
const rulesetFile = join(directory, '.spectral.yaml');
const redoclyConfigFile = join(directory, 'redocly.yaml');
const REDOCLY_CONFIG = [
  'extends:',
  '  - recommended-strict',
  'rules:',
  '  operation-description: error',
  '  operation-tag-defined: error',
  '  operation-singular-tag: error',
  '  tag-description: error',
  '  info-license-strict: error',
  '',
].join('\n');

beforeAll(() => {
  mkdirSync(directory, { recursive: true });
  writeFileSync(documentFile, JSON.stringify(createOpenApiDocument('https://idp.acme.dev')));
  writeFileSync(rulesetFile, 'extends:\n  - "@stoplight/spectral-owasp-ruleset"\n');
  writeFileSync(redoclyConfigFile, REDOCLY_CONFIG);
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
    ['SetAdditionalPropertiesRequest', 'MinePermissions', 'AuditRecord'].includes(finding.path[2] ?? ''));

describe('the OpenAPI document under linters', () => {
  it('passes redocly lint (strict, with descriptions, tags and license) without a finding', () => {
    const problems = (
      JSON.parse(
        report('redocly', [
          'lint',
          documentFile,
          `--config=${redoclyConfigFile}`,
          '--format=json',
          '--max-problems=100000',
        ]),
      ) as { problems: { ruleId: string; message: string }[] }
    ).problems.map((problem) => `${problem.ruleId}: ${problem.message}`);
    expect(problems).toEqual([]);
  });

  it("has no OWASP finding but the rate-limit headers, the spec's two maps and the audit record's changes", () => {
    const findings = JSON.parse(
      report('spectral', ['lint', documentFile, '--ruleset', rulesetFile, '-f', 'json']),
    ) as { code: string; path: string[] }[];
    const unexpected = findings
      .filter((finding) => !ACCEPTED(finding))
      .map((finding) => `${finding.code} at ${finding.path.join('.')}`);
    expect(unexpected).toEqual([]);
    // Exactly the accepted ones: the rate-limit rule (on responses only) and each map once.
    const accepted = findings.map((finding) =>
      finding.code === 'owasp:api4:2023-rate-limit'
        ? `${finding.code} at ${finding.path[3] ?? ''}`
        : `${finding.code} at ${finding.path[2] ?? ''}`,
    );
    expect([...new Set(accepted)].sort()).toEqual([
      'owasp:api3:2023-no-additionalProperties at AuditRecord',
      'owasp:api3:2023-no-additionalProperties at MinePermissions',
      'owasp:api3:2023-no-additionalProperties at SetAdditionalPropertiesRequest',
      'owasp:api4:2023-rate-limit at responses',
    ]);
    expect(accepted.filter((finding) => finding.includes('no-additionalProperties'))).toHaveLength(3);
  });
});
