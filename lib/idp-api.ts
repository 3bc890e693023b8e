import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  LogGroupLogDestination,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RouteKind } from '../shared/api/route-definition.js';
import { ALARM_PERIOD, alarmOnServerErrorRate } from './alarms.js';
import type { IdpFunction } from './idp-function.js';

/**
 * The whole API's ceiling, above what the per-organization limits admit (10 orgs at their
 * default maximum of 20 requests in a second); it caps the cost of a flood, it is not the limit
 * tenants see.
 */
export const DEFAULT_STAGE_THROTTLE: ThrottleSettings = { rateLimit: 200, burstLimit: 400 };

/** One JSON object per request; `$context` variables of HTTP APIs, no headers and no bodies. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integration.latency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  org: '$context.authorizer.claims.org',
  principal: '$context.authorizer.claims.sub',
};

/** Why a route without a JWT is safe, for cdk-nag's authorization rule. */
const UNAUTHENTICATED_BECAUSE: Record<Exclude<RouteKind, 'management'>, string> = {
  public:
    'Public by design (DECISIONS.md): the OpenID discovery document, the JWKS and the OpenAPI document ' +
    'must be readable without a token; they carry no tenant data.',
  oauth:
    'The OAuth 2.0 token endpoint is where a token is obtained, so it cannot require one; the client ' +
    'authenticates with client_secret_basic or client_secret_post, checked by the function (RFC 6749).',
  page:
    'Hosted sign-in pages are where a person without a token signs in (OpenID Connect); forms are bound ' +
    'to the browser that opened them and answered by the function.',
  scim:
    "SCIM provisioning (RFC 7644) authenticates with a directory's long-lived bearer secret, which a JWT " +
    'authorizer cannot check; the function checks it (or an OAuth token with SCIM.PROVISION) on every request.',
  preflight:
    'Browsers send CORS preflights (OPTIONS) without credentials by design (Fetch standard); the function ' +
    'only answers which origins, methods and headers are allowed, and reads no tenant data.',
};

export interface IdpApiProps {
  /** The token issuer; `undefined` means the API's own execute-api origin. */
  readonly issuer?: string;
  readonly audience: string;
  readonly throttle?: ThrottleSettings;
}

/**
 * The HTTP API: a `$default` stage with throttling and JSON access logs, a JWT authorizer that
 * trusts the service's own issuer, and an alarm on the rate of server errors. Routes come from the route
 * table through `addRoutesOf`.
 */
export class IdpApi extends Construct {
  readonly httpApi: HttpApi;
  /** The public origin: the token issuer and the base of every URL the service publishes. */
  readonly origin: string;
  private readonly authorizer: HttpJwtAuthorizer;

  constructor(scope: Construct, id: string, props: IdpApiProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'IDP: OAuth 2.0 token endpoint, discovery and the /idp management API',
      // The stage is created below, with throttling and access logs.
      createDefaultStage: false,
    });
    this.origin = props.issuer ?? this.httpApi.apiEndpoint;
    this.authorizer = new HttpJwtAuthorizer('JwtAuthorizer', this.origin, { jwtAudience: [props.audience] });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.THREE_MONTHS });
    this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? DEFAULT_STAGE_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    alarmOnServerErrorRate(this, 'ServerErrorRateAlarm', {
      errors: this.httpApi.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum' }),
      requests: this.httpApi.metricCount({ period: ALARM_PERIOD, statistic: 'Sum' }),
    });
  }

  /** One API Gateway route per route of the function; the JWT authorizer guards management routes. */
  addRoutesOf(fn: IdpFunction): void {
    if (fn.routes.length === 0) return;
    // One invoke permission per function for this API, not one per route: CloudFormation allows a
    // stack 500 resources, and 150 routes' permissions (with the routes themselves) reached it.
    // The API's routes are all this stack's, each to the function the route table names.
    const integration = new HttpLambdaIntegration(`${fn.node.id}Integration`, fn.lambda, {
      scopePermissionToRoute: false,
    });
    for (const route of fn.routes) {
      const [httpRoute] = this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration,
        authorizer: route.kind === 'management' ? this.authorizer : new HttpNoneAuthorizer(),
      });
      if (httpRoute && route.kind !== 'management') {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: UNAUTHENTICATED_BECAUSE[route.kind],
        });
      }
    }
  }
}
