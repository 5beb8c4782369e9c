// Which costs units the focus pass must look at, from three listings and no manifest read: every
// unit inside the run's window; anywhere else, a unit with no focus manifest, one whose costs
// manifest was written after its focus manifest (the costs day was restated, removed or
// repaired since the FOCUS rows were derived: a run whose window did not hold it, a kill inside
// the focus pass), one whose focus object is missing or was written after its manifest (damaged,
// truncated or replaced behind the exporter's back), one whose costs object is missing or was
// written after the focus manifest (replaced behind the exporter's back, anywhere: the pass checks
// it against its manifest and a costs day inside retention is exported again), and, under
// --verify, every unit.
import { manifestPrefix, objectKey } from '../destination/layout.ts';
import { objectDifference } from '../destination/object-check.ts';
import type { Sink, StoredObject } from '../storage/sink.ts';
import { costTable } from '../tables/costs.ts';
import { focusTable } from '../tables/focus.ts';
import { type FocusManifest, focusManifestKey, focusObjectKey } from './derive.ts';

export interface FocusCandidate {
  /** The costs manifest's key. */
  readonly key: string;
  readonly date: string;
  readonly dataSourceId: string;
  readonly hasFocus: boolean;
  /** The focus object as listed (undefined: none). */
  readonly focusObject: StoredObject | undefined;
  /** The costs object as listed (undefined: none). */
  readonly costsObject: StoredObject | undefined;
}

/** `_manifests/costs/billed_date=D/<ds>.json`: (date, data source). */
const COST_KEY = /billed_date=(\d{4}-\d{2}-\d{2})\/([^/]+)\.json$/;

export async function focusCandidates(
  sink: Sink,
  window: { readonly from: string; readonly to: string },
  verify: boolean,
): Promise<FocusCandidate[]> {
  const [costManifests, focusManifests, focusObjects, costsObjects] = await Promise.all([
    sink.listObjects(manifestPrefix(costTable)),
    sink.listObjects(manifestPrefix(focusTable)),
    sink.listObjects(`${focusTable.name}/`),
    sink.listObjects(`${costTable.name}/`),
  ]);
  const candidates: FocusCandidate[] = [];
  for (const [key, costsManifest] of costManifests) {
    const m = COST_KEY.exec(key);
    if (!m) continue;
    const [, date = '', dataSourceId = ''] = m;
    const focusManifest = focusManifests.get(focusManifestKey(dataSourceId, date));
    const focusObject = focusObjects.get(focusObjectKey(dataSourceId, date));
    const costsObject = costsObjects.get(objectKey(costTable, date, dataSourceId));
    const look =
      verify ||
      !focusManifest ||
      (date >= window.from && date <= window.to) ||
      writtenSince(costsManifest, focusManifest) ||
      (focusObject !== undefined && writtenSince(focusObject, focusManifest)) ||
      (costsObject !== undefined && writtenSince(costsObject, focusManifest)) ||
      // No costs object: either its manifest records none (checked cheaply) or it is gone.
      (costsObject === undefined && focusObject !== undefined) ||
      // No object: the focus manifest either records a removal or names an object that is gone.
      focusObject === undefined;
    if (look)
      candidates.push({
        key,
        date,
        dataSourceId,
        hasFocus: focusManifest !== undefined,
        focusObject,
        costsObject,
      });
  }
  return candidates.sort(
    (a, b) => a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId),
  );
}

/**
 * Written after `than`. S3 keeps LastModified to the second, and a unit's two writes usually share
 * one: a tie is not taken as a change (else every unit would be read every run); what changes
 * within the second it was written is --verify's to find.
 */
function writtenSince(object: StoredObject, than: StoredObject): boolean {
  if (object.modifiedMs === undefined || than.modifiedMs === undefined) return true;
  return object.modifiedMs > than.modifiedMs;
}

/** Why the focus object is not what its manifest says, if it is not (a removal's manifest names none). */
export async function objectDamage(
  sink: Sink,
  focus: FocusManifest,
  listed: StoredObject | undefined,
  verify: boolean,
): Promise<string | undefined> {
  if (focus.key === null) return listed ? 'an object where the manifest records none' : undefined;
  return objectDifference(sink, focus, focus.key, listed, verify);
}
