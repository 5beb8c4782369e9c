// CDK entry: settings from context, one stack. A settings problem is the user's to fix, not a
// crash: it prints as one message, without a stack trace, and synth exits 1.
import { App } from 'aws-cdk-lib';
import { CloudforetExportStack } from './cloudforet-export-stack.ts';
import { readSettings, SettingsError } from './settings.ts';

const app = new App();
try {
  new CloudforetExportStack(app, 'CloudforetExport', {
    settings: readSettings(app.node.getAllContext()),
    description: 'Cloudforet cost and inventory export to Parquet on S3 for Athena',
  });
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
