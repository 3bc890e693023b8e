import { Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { IdpFunction } from './idp-function.js';

/**
 * The only function that sends email (functions/mailer.ts): the request functions hand it each
 * email by an asynchronous invocation, so no answer waits for SES (docs/operating.md, "Email").
 * Lambda tries a failed event twice more and drops it after an hour, when a reset link has
 * expired anyway. No dead-letter queue: the events carry join and reset links, credentials that
 * must not be kept; a failure is its log line, its metric and the function's error alarm.
 */
export class Mailer extends Construct {
  readonly function: IdpFunction;

  constructor(scope: Construct, id: string, props: { sender: string; environment: Record<string, string> }) {
    super(scope, id);
    this.function = new IdpFunction(this, 'Function', {
      entry: 'functions/mailer.ts',
      description: 'IDP: sends the emails the request functions hand it, through Amazon SES',
      // The settings every function reads (shared/config.ts); the mailer reads no table.
      environment: { ...props.environment, IDP_SES_SENDER: props.sender },
      timeout: Duration.seconds(30),
    });
    this.function.lambda.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.hours(1) });
    // SES `SendEmail` from the sender's address (or its domain's identity), nothing else.
    const domain = props.sender.split('@')[1] ?? props.sender;
    this.function.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [props.sender, domain].map((identity) =>
          Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: identity }),
        ),
        conditions: { StringEquals: { 'ses:FromAddress': props.sender } },
      }),
    );
  }

  /** Lets `fn` hand emails over: invoking the mailer, nothing else. */
  handEmailsFrom(fn: IdpFunction): void {
    fn.lambda.addEnvironment('IDP_MAILER_FUNCTION', this.function.lambda.functionName);
    // The function itself, not `grantInvoke`'s `:*` of every version: the request functions
    // invoke it unqualified.
    fn.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [this.function.lambda.functionArn],
      }),
    );
  }
}
