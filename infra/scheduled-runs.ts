// What the schedules start and when: the stack's own schedules, or with tenants each tenant's
// (tenant-lake.ts), which start the same functions with {"tenant": "<id>"}, and the one daily cost
// run across every tenant (tenants-run.ts), which starts with {"tenants": [every id]}.
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { ScheduledRun } from './schedules.ts';
import type { Settings } from './settings.ts';

export interface ScheduledTargets {
  readonly cost: IStateMachine;
  readonly inventory: IFunction;
  readonly alerts: IFunction;
  readonly statements: IFunction;
  readonly freshness: IFunction;
}

/** The daily cost run's id: with tenants, one run across them all starts it (tenants-run.ts). */
export const COST_DAILY = 'CostDaily';

export function scheduledRuns(settings: Settings, targets: ScheduledTargets): ScheduledRun[] {
  return [
    {
      id: COST_DAILY,
      description: 'Daily cost export: the backfill state machine over the default window',
      expression: settings.costSchedule,
      target: { stateMachine: targets.cost },
    },
    {
      id: 'InventoryDaily',
      description: 'Daily inventory snapshot',
      expression: settings.inventorySchedule,
      target: { function: targets.inventory },
    },
    {
      id: 'AlertsDaily',
      description: 'Daily cost alerts after the cost export: anomalies and budget burn rates',
      expression: settings.alertsSchedule,
      target: { function: targets.alerts },
    },
    {
      id: 'StatementsDaily',
      description: 'Daily statements after the cost export: archive confirmed months, revise restated ones',
      expression: settings.statementsSchedule,
      target: { function: targets.statements },
    },
    {
      id: 'FreshnessHourly',
      description: 'Hourly freshness check: the metrics the freshness alarms watch',
      expression: 'rate(1 hour)',
      target: { function: targets.freshness },
    },
  ];
}
