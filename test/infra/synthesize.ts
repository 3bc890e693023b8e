import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { createIdpApp } from '../../lib/idp-app.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** This test process's folder in the project's ignored `.tmp/`. */
const TEMP_DIR = path.join(PROJECT_ROOT, '.tmp', `infra-tests-${process.pid}`);

/**
 * CDK writes a cloud assembly under the temp directory for every synthesis and leaves it there;
 * keep those in the project instead of the machine's temp directory.
 */
export const useProjectTempDir = (): string => {
  mkdirSync(TEMP_DIR, { recursive: true });
  process.env.TMPDIR = TEMP_DIR;
  return TEMP_DIR;
};

/** For `afterAll`: the assemblies are not needed once the file's tests have run. */
export const removeProjectTempDir = (): void => rmSync(TEMP_DIR, { recursive: true, force: true });

/** The feature flags `cdk synth` applies, so the tests synthesize what the CLI would. */
const cdkJsonContext = (): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;

/**
 * The app exactly as `bin/idp.ts` builds it (cdk-nag included), with extra context. Bundling is
 * skipped unless asked for: esbuild is slow and the assertion tests do not look inside bundles.
 * So is CDK's built-in CloudFormation validation (a second or more of WebAssembly a synthesis):
 * `test/infra/stack.unit.test.ts` runs it once on the app as deployed.
 */
export const synthesizeIdp = (
  context: Record<string, unknown> = {},
  options: { bundle?: boolean; outdir?: string; validate?: boolean } = {},
) => {
  useProjectTempDir();
  return createIdpApp({
    outdir: options.outdir,
    builtinCloudFormationValidation: options.validate ?? false,
    context: {
      ...cdkJsonContext(),
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
};

/** The CloudFormation logical id of a construct's main resource (e.g. an L2's `Resource`). */
export const logicalIdOf = (construct: IConstruct): string => {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return (element.stack as Stack).getLogicalId(element);
};

export interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
  Condition?: Record<string, Record<string, string[]>>;
}

/** Every IAM statement attached to a role; actions (sorted) and resources as arrays. */
export const statementsOfRole = (template: Template, roleLogicalId: string): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) =>
      (policy.Properties.Roles as unknown[]).some(
        (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId }),
      ),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
    .map((statement) => ({
      ...statement,
      Action: [statement.Action].flat().sort(),
      Resource: [statement.Resource].flat(),
    }));

/**
 * One IAM statement as a line a person reads and writes: `<actions> on <resources>` and its
 * conditions, e.g. `dynamodb:UpdateItem on table where ForAllValues:StringLike
 * dynamodb:LeadingKeys RATE#*`. Actions and condition values sorted (their order means nothing);
 * resources named by `names` (logical id to name), pseudo parameters as `<AWS::Region>`; anything
 * else is spelled out as it is, so that nothing new hides behind a name.
 */
export const describeStatement = (statement: Statement, names: ReadonlyMap<string, string>): string => {
  const resource = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const intrinsic = value as Record<string, unknown>;
    if (typeof intrinsic.Ref === 'string') {
      return intrinsic.Ref.startsWith('AWS::')
        ? `<${intrinsic.Ref}>`
        : (names.get(intrinsic.Ref) ?? intrinsic.Ref);
    }
    const getAtt = intrinsic['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt?.[1] === 'Arn') return names.get(getAtt[0]) ?? `${getAtt[0]}.Arn`;
    if (getAtt?.[1] === 'StreamArn') return `${names.get(getAtt[0]) ?? getAtt[0]} stream`;
    const join = intrinsic['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(resource).join(join[0]);
    return JSON.stringify(value);
  };
  const conditions = Object.entries(statement.Condition ?? {}).flatMap(([operator, tests]) =>
    Object.entries(tests).map(
      ([key, values]) => ` where ${operator} ${key} ${[values].flat().sort().join(', ')}`,
    ),
  );
  const effect = statement.Effect === 'Allow' ? '' : `${statement.Effect} `;
  return `${effect}${[...statement.Action].sort().join(' ')} on ${statement.Resource.map(resource).join(', ')}${conditions.join('')}`;
};
