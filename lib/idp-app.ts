import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IdpStack } from './idp-stack.js';

/**
 * The CDK app: the IDP stack, configured from context (`-c issuer=https://id.example.com`,
 * `-c secretPrefix=idp/`, `-c sesSender=no-reply@example.com`, `-c corsOrigins=https://console.example.com`, while upgrading an older table `-c globalIndexes=N`), checked by cdk-nag's AWS Solutions rules during synthesis. Any
 * finding that is neither fixed nor acknowledged with a reason fails the synthesis.
 */
export const createIdpApp = (props?: AppProps): { app: App; stack: IdpStack } => {
  const app = new App(props);
  const stack = new IdpStack(app, 'Idp', {
    issuer: app.node.tryGetContext('issuer'),
    secretPrefix: app.node.tryGetContext('secretPrefix'),
    sesSender: app.node.tryGetContext('sesSender'),
    corsOrigins: app.node.tryGetContext('corsOrigins'),
    ...(app.node.tryGetContext('globalIndexes') !== undefined
      ? { globalIndexes: Number(app.node.tryGetContext('globalIndexes')) }
      : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
};
