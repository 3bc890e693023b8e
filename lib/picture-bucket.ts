import { Duration, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { pictureKey } from '../shared/pictures/picture-store.js';
import type { IdpFunction } from './idp-function.js';

/** `pictures/*\/*`: the key of `shared/pictures/picture-store.ts` with wildcards for org and user. */
export const PICTURE_OBJECTS = pictureKey('*', '*');

/**
 * The only object actions a picture reader/writer gets: no ListBucket, no DeleteObject. A user's
 * record names the version it shows, which GetObjectVersion reads.
 */
export const PICTURE_ACTIONS = ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject'];

/** What the function that deprovisions users (SCIM) may do to their pictures: delete, nothing else. */
export const PICTURE_REMOVAL_ACTIONS = ['s3:DeleteObject'];

/** Object data actions that the bucket policy denies to every principal not granted here. */
const GUARDED_ACTIONS = ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject', 's3:DeleteObject'];

/** An overwritten picture can be restored for this long; then S3 deletes the old version. */
export const NONCURRENT_PICTURE_DAYS = 30;

/** Server access logs are kept as long as the API's access logs (three months). */
export const ACCESS_LOG_DAYS = 90;

/**
 * Log delivery through a bucket policy (`logging.s3.amazonaws.com`, scoped to the picture bucket
 * and the account) instead of the legacy LogDeliveryWrite ACL, so both buckets keep ACLs disabled.
 * Set here because cdk.json does not set it for the whole app.
 */
const ACCESS_LOGS_USE_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

/**
 * The private bucket of user pictures. The API serves pictures itself (`GET
 * /idp/users/{id}/picture`), so nothing is public: all public access is blocked, ACLs are disabled,
 * requests must use TLS. SSE-S3 encryption: access is decided by IAM alone, and a KMS key would add
 * a key fee, per-request KMS charges and a key policy without narrowing who can read. Versioned,
 * so an overwritten picture can be recovered for `NONCURRENT_PICTURE_DAYS`; retained when the stack
 * is deleted, since it holds user data. Server access logs go to a separate bucket.
 *
 * Only functions passed to `grantPictureAccess` may read or write pictures: their roles get
 * GetObject, GetObjectVersion and PutObject on `pictures/*\/*`; `grantPictureRemoval` gives
 * DeleteObject alone. The bucket policy denies object reads, writes and deletes to every other
 * principal of the account, even one whose own policy allows `s3:GetObject` on `*` (e.g. a
 * ReadOnlyAccess operator role).
 */
export class PictureBucket extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;
  private readonly grantedRoles: Role[] = [];

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.node.setContext(ACCESS_LOGS_USE_BUCKET_POLICY, true);

    this.accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // S3 delivers server access logs only to buckets with SSE-S3 default encryption.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(ACCESS_LOG_DAYS) }],
      // Logs of who touched user data outlive a mistaken `cdk destroy`; they still expire.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [
        {
          id: 'ExpireOverwrittenPictures',
          noncurrentVersionExpiration: Duration.days(NONCURRENT_PICTURE_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'pictures-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * Lets the function read and write pictures, and only that: `IDP_PICTURE_BUCKET`, s3:GetObject,
   * s3:GetObjectVersion and s3:PutObject on `pictures/*\/*`, and an exception in the bucket
   * policy's deny.
   */
  grantPictureAccess(fn: IdpFunction): void {
    this.grant(fn, PICTURE_ACTIONS);
  }

  /** Lets the function delete pictures (a deprovisioned user's), and only that. */
  grantPictureRemoval(fn: IdpFunction): void {
    this.grant(fn, PICTURE_REMOVAL_ACTIONS);
  }

  private grant(fn: IdpFunction, actions: string[]): void {
    if (this.grantedRoles.length === 0) this.denyOtherPrincipals();
    this.grantedRoles.push(fn.role);

    fn.lambda.addEnvironment('IDP_PICTURE_BUCKET', this.bucket.bucketName);
    fn.lambda.addToRolePolicy(
      new PolicyStatement({
        actions,
        resources: [this.bucket.arnForObjects(PICTURE_OBJECTS)],
      }),
    );
    const bucketLogicalId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${PICTURE_OBJECTS}]`,
      reason:
        'Picture keys are pictures/<orgId>/<userId>, one per user created at runtime, so they can only be named ' +
        `by pattern; the wildcard is confined to the pictures/ prefix of this bucket, with ${actions.join(', ')} ` +
        'only (no ListBucket).',
    });
  }

  /** Denies object reads and writes to every principal whose role was not granted access. */
  private denyOtherPrincipals(): void {
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyGrantedRolesReadOrWritePictures',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: GUARDED_ACTIONS,
        resources: [this.bucket.arnForObjects('*')],
        conditions: {
          ArnNotEquals: {
            'aws:PrincipalArn': Lazy.list({ produce: () => this.grantedRoles.map((role) => role.roleArn) }),
          },
        },
      }),
    );
  }
}
