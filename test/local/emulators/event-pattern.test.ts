import { describe, expect, it } from 'vitest';
import {
  compileEventPattern,
  InvalidEventPatternError,
  type JsonObject,
  type JsonValue,
  matchesEventPattern,
} from '../../../lib/local/emulators/index.js';

/** An event as the bus builds it. */
const event = {
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': 'video.completed',
  source: 'video-service.jobs',
  account: '000000000000',
  time: '2026-11-21T10:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:s3:::media/out.mp4'],
  detail: {
    workspace_id: 'ws_123',
    status: 'completed',
    duration: 12.5,
    credits: 0,
    file_name: 'Final-Cut.PNG',
    tags: ['promo', 'summer'],
    caption: null,
    source_ip: '10.0.0.42',
    owner: { kind: 'user', id: 'u_1' },
    scenes: [
      { kind: 'avatar', seconds: 4 },
      { kind: 'broll', seconds: 8 },
    ],
  },
};

type Case = [name: string, pattern: JsonObject, matches: boolean];

const cases: Case[] = [
  // Exact values, arrays as OR, top-level fields.
  ['exact source', { source: ['video-service.jobs'] }, true],
  ['exact source, other value', { source: ['billing'] }, false],
  ['array is OR', { 'detail-type': ['video.failed', 'video.completed'] }, true],
  ['array is OR, none matches', { 'detail-type': ['video.failed', 'video.queued'] }, false],
  ['keys are AND', { source: ['video-service.jobs'], 'detail-type': ['video.failed'] }, false],
  ['account and region', { account: ['000000000000'], region: ['us-east-1'] }, true],
  ['region mismatch', { region: ['eu-west-1'] }, false],
  ['resources array element', { resources: ['arn:aws:s3:::media/out.mp4'] }, true],
  ['exact number matches by value', { detail: { duration: [12.5] } }, true],
  ['number does not match its string', { detail: { duration: ['12.5'] } }, false],
  ['null', { detail: { caption: [null] } }, true],
  ['null does not match a string', { detail: { status: [null] } }, false],
  ['event array field: any element', { detail: { tags: ['summer'] } }, true],
  ['event array field: no element', { detail: { tags: ['winter'] } }, false],
  // Nested objects.
  ['nested object', { detail: { owner: { kind: ['user'] } } }, true],
  ['nested object mismatch', { detail: { owner: { kind: ['team'] } } }, false],
  [
    'nested pattern over an array of objects',
    { detail: { scenes: { kind: ['broll'], seconds: [8] } } },
    true,
  ],
  [
    'array consistency: fields from different elements',
    { detail: { scenes: { kind: ['avatar'], seconds: [8] } } },
    false,
  ],
  // prefix / suffix, with and without case.
  ['prefix', { source: [{ prefix: 'video-service.' }] }, true],
  ['prefix mismatch', { source: [{ prefix: 'billing.' }] }, false],
  ['prefix ignore case', { detail: { file_name: [{ prefix: { 'equals-ignore-case': 'final-' } }] } }, true],
  ['prefix is case-sensitive', { detail: { file_name: [{ prefix: 'final-' }] } }, false],
  ['suffix', { detail: { file_name: [{ suffix: '.PNG' }] } }, true],
  ['suffix mismatch', { detail: { file_name: [{ suffix: '.png' }] } }, false],
  ['suffix ignore case', { detail: { file_name: [{ suffix: { 'equals-ignore-case': '.png' } }] } }, true],
  ['prefix does not apply to numbers', { detail: { duration: [{ prefix: '12' }] } }, false],
  // equals-ignore-case and wildcard.
  ['equals-ignore-case', { detail: { status: [{ 'equals-ignore-case': 'COMPLETED' }] } }, true],
  ['equals-ignore-case mismatch', { detail: { status: [{ 'equals-ignore-case': 'FAILED' }] } }, false],
  ['wildcard', { 'detail-type': [{ wildcard: 'video.*ed' }] }, true],
  ['wildcard mismatch', { 'detail-type': [{ wildcard: 'clip.*' }] }, false],
  ['wildcard escaped star is literal', { 'detail-type': [{ wildcard: 'video\\*' }] }, false],
  // anything-but.
  ['anything-but string', { detail: { status: [{ 'anything-but': 'failed' }] } }, true],
  ['anything-but string excluded', { detail: { status: [{ 'anything-but': 'completed' }] } }, false],
  ['anything-but list', { detail: { status: [{ 'anything-but': ['failed', 'queued'] }] } }, true],
  [
    'anything-but list excluded',
    { detail: { status: [{ 'anything-but': ['failed', 'completed'] }] } },
    false,
  ],
  ['anything-but number', { detail: { credits: [{ 'anything-but': 5 }] } }, true],
  ['anything-but number excluded', { detail: { credits: [{ 'anything-but': 0 }] } }, false],
  ['anything-but prefix', { source: [{ 'anything-but': { prefix: 'billing.' } }] }, true],
  ['anything-but prefix excluded', { source: [{ 'anything-but': { prefix: 'video-' } }] }, false],
  [
    'anything-but suffix excluded',
    { detail: { file_name: [{ 'anything-but': { suffix: '.PNG' } }] } },
    false,
  ],
  [
    'anything-but ignore case excluded',
    { detail: { status: [{ 'anything-but': { 'equals-ignore-case': 'COMPLETED' } }] } },
    false,
  ],
  ['anything-but wildcard', { detail: { file_name: [{ 'anything-but': { wildcard: '*.mp4' } }] } }, true],
  ['anything-but does not match a missing field', { detail: { missing: [{ 'anything-but': 'x' }] } }, false],
  // numeric.
  ['numeric range', { detail: { duration: [{ numeric: ['>', 10, '<=', 20] }] } }, true],
  ['numeric range miss', { detail: { duration: [{ numeric: ['>', 20] }] } }, false],
  ['numeric equals', { detail: { credits: [{ numeric: ['=', 0] }] } }, true],
  ['numeric equals miss', { detail: { credits: [{ numeric: ['=', 1] }] } }, false],
  ['numeric does not match strings', { detail: { status: [{ numeric: ['>', 0] }] } }, false],
  // exists.
  ['exists true', { detail: { workspace_id: [{ exists: true }] } }, true],
  ['exists true on a missing field', { detail: { batch_id: [{ exists: true }] } }, false],
  ['exists false on a missing field', { detail: { batch_id: [{ exists: false }] } }, true],
  ['exists false on a present field', { detail: { workspace_id: [{ exists: false }] } }, false],
  ['exists true on null (a value)', { detail: { caption: [{ exists: true }] } }, true],
  ['exists false below a missing object', { detail: { parent: { id: [{ exists: false }] } } }, true],
  ['exists true on an intermediate node', { detail: { owner: [{ exists: true }] } }, false],
  // cidr.
  ['cidr', { detail: { source_ip: [{ cidr: '10.0.0.0/24' }] } }, true],
  ['cidr mismatch', { detail: { source_ip: [{ cidr: '192.168.0.0/16' }] } }, false],
  // $or.
  ['$or', { detail: { $or: [{ status: ['failed'] }, { credits: [0] }] } }, true],
  ['$or none', { detail: { $or: [{ status: ['failed'] }, { credits: [1] }] } }, false],
  ['mixed conditions OR', { detail: { status: ['failed', { prefix: 'comp' }] } }, true],
];

describe('event pattern matching', () => {
  it.each(cases)('%s', (_name, pattern, expected) => {
    expect(matchesEventPattern(pattern, event)).toBe(expected);
  });

  it('accepts the pattern as JSON text and compiles it once for many events', () => {
    const compiled = compileEventPattern('{"detail":{"status":["completed"]}}');
    expect(matchesEventPattern(compiled, event)).toBe(true);
    expect(matchesEventPattern(compiled, { ...event, detail: { status: 'failed' } })).toBe(false);
  });

  const invalid: [string, JsonValue][] = [
    ['not JSON', '{source'],
    ['empty pattern', {}],
    ['leaf that is not an array', { source: 'video-service.jobs' }],
    ['empty array', { source: [] }],
    ['nested array', { source: [['a']] }],
    ['unknown operator', { source: [{ contains: 'video' }] }],
    ['two operators in one object', { source: [{ prefix: 'a', suffix: 'b' }] }],
    ['numeric without numbers', { detail: { n: [{ numeric: ['>', 'ten'] }] } }],
    ['numeric with two lower bounds', { detail: { n: [{ numeric: ['>', 1, '>', 2] }] } }],
    ['exists with a string', { detail: { n: [{ exists: 'yes' }] } }],
    ['bad cidr', { detail: { ip: [{ cidr: '10.0.0.0/99' }] } }],
    ['consecutive wildcards', { source: [{ wildcard: 'a**b' }] }],
    ['$or with one alternative', { $or: [{ source: ['a'] }] }],
  ];

  it.each(invalid)('rejects an invalid pattern: %s', (_name, pattern) => {
    expect(() => compileEventPattern(pattern)).toThrow(InvalidEventPatternError);
  });
});
