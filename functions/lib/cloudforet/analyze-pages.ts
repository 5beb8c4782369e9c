// Paging over a python-core analyze verb (e.g. budget-usage/analyze). Its answer is
// {results, more}: no total_count, so paging ends when `more` is false. A repeated group
// (rows moved while paging) aborts the unit, as for list verbs.

import { PagingDriftError } from '../errors.ts';
import type { CloudforetClient } from './client.ts';
import { type ApiRecord, PAGE_LIMIT } from './pager.ts';
import type { AnswerCheck } from './parse-answer.ts';

export interface AnalyzeRequest {
  readonly path: string;
  readonly params?: Record<string, unknown>;
  readonly groupBy: readonly string[];
  readonly fields: Record<string, { readonly key: string; readonly operator: string }>;
  readonly sort: readonly string[];
  /** What makes a result row unique. */
  readonly identify: (row: ApiRecord) => string;
  readonly pageLimit?: number;
}

interface AnalyzeAnswer {
  results?: ApiRecord[];
  more?: boolean;
}

export function analyzeBody(req: AnalyzeRequest, start: number, limit: number): Record<string, unknown> {
  return {
    ...req.params,
    query: {
      group_by: req.groupBy,
      fields: req.fields,
      sort: req.sort.map((key) => ({ key, desc: false })),
      page: { start, limit },
    },
  };
}

export async function* analyzePages(
  client: CloudforetClient,
  req: AnalyzeRequest,
  signal?: AbortSignal,
): AsyncGenerator<ApiRecord[]> {
  const limit = Math.min(req.pageLimit ?? PAGE_LIMIT, PAGE_LIMIT);
  const seen = new Set<string>();
  for (let start = 1; ; ) {
    const answer: AnalyzeAnswer = await client.call(req.path, analyzeBody(req, start, limit), {
      signal,
      check: laterPage(start),
    });
    const rows = answer.results ?? [];
    for (const row of rows) {
      const id = req.identify(row);
      if (seen.has(id)) throw new PagingDriftError(`${req.path}: ${id} came twice while paging`);
      seen.add(id);
    }
    if (rows.length > 0) yield rows;
    if (answer.more !== true) return;
    if (rows.length === 0) throw new PagingDriftError(`${req.path}: an empty page at row ${start} said more`);
    start += rows.length;
  }
}

/**
 * `{}` is an empty answer only on the first page: a later one is asked because the page before
 * said `more`, so an answer without results there is no answer, never the listing's end.
 */
function laterPage(start: number): AnswerCheck {
  return ({ results, more }) => {
    if (results !== undefined) return undefined;
    if (more === true) return '"more": true and no "results"';
    return start > 1 ? `no "results" for the rows from ${start}, after a page that said "more"` : undefined;
  };
}
