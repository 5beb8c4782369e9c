// CDK entry: settings from context, one stack.
import { App } from 'aws-cdk-lib';
import { CloudforetExportStack } from './cloudforet-export-stack.ts';
import { readSettings, settingsContext } from './settings.ts';

const app = new App();
new CloudforetExportStack(app, 'CloudforetExport', {
  settings: readSettings(settingsContext((key) => app.node.tryGetContext(key))),
  description: 'Cloudforet cost and inventory export to Parquet on S3 for Athena',
});
