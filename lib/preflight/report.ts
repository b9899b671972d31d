/**
 * The preflight's report: one row per check with its worst value, the one closest to its limit (where
 * it is, and the limit), then one line per value past its limit. Plain text, fixed-width: it reads the
 * same in a terminal and in a CI log.
 */
import { type CheckResult, type Measurement, passes } from './checks.js';
import { UNRESOLVED_VALUE_LENGTH } from './template-values.js';

export interface Failure {
  check: CheckResult;
  measurement: Measurement;
}

export function failuresOf(results: readonly CheckResult[]): Failure[] {
  return results.flatMap((check) =>
    check.measurements
      .filter((measurement) => !passes(check, measurement))
      .map((measurement) => ({ check, measurement })),
  );
}

/** How far along its limit a value is: the row shows the measurement with the highest. */
function closeness(check: CheckResult, measurement: Measurement): number {
  if (check.bound === 'min')
    return measurement.value === 0 ? Number.POSITIVE_INFINITY : measurement.limit / measurement.value;
  return measurement.limit === 0 ? measurement.value : measurement.value / measurement.limit;
}

function closestToLimit(check: CheckResult): Measurement | undefined {
  let closest: Measurement | undefined;
  for (const measurement of check.measurements) {
    if (!closest || closeness(check, measurement) > closeness(check, closest)) closest = measurement;
  }
  return closest;
}

const number = new Intl.NumberFormat('en-US');

function where(measurement: Measurement): string {
  const detail = measurement.detail ? ` (${measurement.detail})` : '';
  return `${measurement.stack}/${measurement.resource}${detail}`;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function formatReport(results: readonly CheckResult[]): string {
  const rows = [['MEASURE', 'WORST', 'LIMIT', 'RESULT', 'WHERE']];
  for (const check of results) {
    const closest = closestToLimit(check);
    const failed = check.measurements.filter((measurement) => !passes(check, measurement)).length;
    const result =
      failed > 0 ? `FAIL (${failed})` : check.notMeasured ? 'NOT MEASURED' : closest ? 'ok' : 'none';
    const bound = check.bound === 'max' ? '≤' : '≥';
    rows.push([
      check.measure,
      closest ? `${number.format(closest.value)} ${check.unit}`.trimEnd() : '-',
      closest ? `${bound} ${number.format(closest.limit)}` : '-',
      result,
      closest ? where(closest) : '',
    ]);
  }
  const lines = [
    table(rows),
    '',
    `Values known only at deploy time (ARNs, generated names) are counted at ${UNRESOLVED_VALUE_LENGTH} characters each.`,
  ];
  const notes = results.filter((check) => check.notMeasured);
  if (notes.length > 0)
    lines.push('', ...notes.map((check) => `NOT MEASURED ${check.measure}: ${check.notMeasured}`));
  const failures = failuresOf(results);
  if (failures.length > 0) {
    lines.push('');
    for (const { check, measurement } of failures) {
      const bound = check.bound === 'max' ? 'above the limit of' : 'below the minimum of';
      lines.push(
        `FAIL ${check.measure}: ${where(measurement)} is ${`${number.format(measurement.value)} ${check.unit}`.trimEnd()}, ${bound} ${number.format(measurement.limit)}`,
      );
    }
  }
  return lines.join('\n');
}
