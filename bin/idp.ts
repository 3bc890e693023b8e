import { createIdpApp } from '../lib/idp-app.js';

// The CDK CLI (`npx cdk synth`, see cdk.json) runs this file; the app synthesizes on exit.
createIdpApp();
