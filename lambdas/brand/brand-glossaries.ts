/**
 * Brand glossaries: how a brand's words are said and translated. `terms` are pronunciations (a word
 * and how to say it, written as it sounds: `Nguyen` → `win`), applied by every speech engine
 * (`engines/speech/pronunciations.ts`); `do_not_translate_terms` and `forced_translations` hold
 * translations to the brand's wording (`engines/translation`, `enforceGlossary`).
 *
 * What a video, a template generation or a translation is made with is the glossary AS IT WAS when the
 * request was admitted (`glossaryForGeneration` returns a snapshot the job keeps): later edits and a
 * delete never change work already accepted. A deleted glossary leaves a tombstone, so a request that
 * still names it keeps working (without its rules, reported as `applied: false`), while an id that
 * never existed in the workspace is refused with 400 naming the field.
 */
import { config } from '../core/config.js';
import { InvalidParameterError, NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, queryPage, transactWrite, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

export interface PronunciationTerm {
  /** The word or phrase as written in scripts. Matched whole, ignoring case. */
  term: string;
  /** How it is said, written as it sounds in the script's language (`win`, `ay dee ess`). */
  pronunciation: string;
}

export interface DoNotTranslateTerm {
  term: string;
}

export interface ForcedTranslation {
  term: string;
  /** Inserted verbatim wherever `term` is translated. */
  translation: string;
}

export interface BrandGlossary {
  brand_glossary_id: string;
  name: string;
  terms: PronunciationTerm[];
  do_not_translate_terms: DoNotTranslateTerm[];
  forced_translations: ForcedTranslation[];
  /** Unix seconds. */
  created_at: number;
  updated_at: number;
}

/** The lists a glossary holds; on create each defaults to empty, on update an omitted one is kept. */
export type GlossaryRules = Pick<BrandGlossary, 'terms' | 'do_not_translate_terms' | 'forced_translations'>;

export const GLOSSARY_LIMITS = {
  /** Entries per list. */
  entries: 500,
  /** Characters of a term, a pronunciation, a translation. */
  text: 200,
  /** Characters of a name. */
  name: 256,
} as const;

type GlossaryItem = BrandGlossary & { pk: string; sk: string };

const glossaryKey = (workspaceId: string, glossaryId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.brandGlossary, glossaryId);
const tombstoneKey = (workspaceId: string, glossaryId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.brandGlossaryTombstone, glossaryId);

const glossaryNotFound = (glossaryId: string) =>
  new NotFoundError(`Brand glossary ${glossaryId} not found.`, 'resource_not_found', 'brand_glossary_id');

function toGlossary(item: GlossaryItem): BrandGlossary {
  const { pk: _pk, sk: _sk, ...glossary } = item;
  return glossary;
}

/**
 * A list's entries must name each term once (ignoring case): two pronunciations or translations of
 * the same word would leave which one applies to chance.
 */
function requireUniqueTerms(entries: readonly { term: string }[], list: string): void {
  const seen = new Map<string, number>();
  entries.forEach(({ term }, index) => {
    const folded = term.toLocaleLowerCase();
    const first = seen.get(folded);
    if (first !== undefined) {
      throw new InvalidParameterError(
        `${list}[${index}].term repeats "${term}" of ${list}[${first}]: each term appears once.`,
        `${list}[${index}].term`,
      );
    }
    seen.set(folded, index);
  });
}

function requireConsistentRules(rules: Partial<GlossaryRules>): void {
  if (rules.terms) requireUniqueTerms(rules.terms, 'terms');
  if (rules.do_not_translate_terms)
    requireUniqueTerms(rules.do_not_translate_terms, 'do_not_translate_terms');
  if (rules.forced_translations) requireUniqueTerms(rules.forced_translations, 'forced_translations');
}

export async function createGlossary(
  workspaceId: string,
  input: { name: string } & Partial<GlossaryRules>,
): Promise<BrandGlossary> {
  requireConsistentRules(input);
  const now = nowSeconds();
  const glossary: BrandGlossary = {
    brand_glossary_id: newId(),
    name: input.name,
    terms: input.terms ?? [],
    do_not_translate_terms: input.do_not_translate_terms ?? [],
    forced_translations: input.forced_translations ?? [],
    created_at: now,
    updated_at: now,
  };
  const created = await putNewItem({ ...glossaryKey(workspaceId, glossary.brand_glossary_id), ...glossary });
  if (!created) throw new Error(`Brand glossary id collision: ${glossary.brand_glossary_id}`);
  return glossary;
}

export async function getGlossary(workspaceId: string, glossaryId: string): Promise<BrandGlossary> {
  const item = ID_PATTERN.test(glossaryId)
    ? await getItem<GlossaryItem>(glossaryKey(workspaceId, glossaryId))
    : undefined;
  if (!item) throw glossaryNotFound(glossaryId);
  return toGlossary(item);
}

/** Newest first. */
export async function listGlossaries(
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
) {
  const result = await queryPage<GlossaryItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.brandGlossary}#`,
    limit: page.limit,
    token: page.token,
    binding: `${workspaceId}:BrandGlossariesList`,
  });
  return { items: result.items.map(toGlossary), nextToken: result.nextToken };
}

/** A given list replaces the stored one (an empty list clears it); an omitted one is kept. */
export async function updateGlossary(
  workspaceId: string,
  glossaryId: string,
  changes: { name?: string | undefined } & Partial<GlossaryRules>,
): Promise<BrandGlossary> {
  requireConsistentRules(changes);
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const item = ID_PATTERN.test(glossaryId)
    ? await updateExistingItem<GlossaryItem>(glossaryKey(workspaceId, glossaryId), {
        ...set,
        updated_at: nowSeconds(),
      })
    : undefined;
  if (!item) throw glossaryNotFound(glossaryId);
  return toGlossary(item);
}

/** Irreversible: the glossary is gone, and its tombstone keeps requests that still name it working. */
export async function deleteGlossary(workspaceId: string, glossaryId: string): Promise<void> {
  if (!ID_PATTERN.test(glossaryId)) throw glossaryNotFound(glossaryId);
  const key = glossaryKey(workspaceId, glossaryId);
  // One transaction: never a glossary without its tombstone's promise, nor a tombstone beside a live glossary.
  const failed = await transactWrite([
    { Delete: { TableName: config().tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
    {
      Put: {
        TableName: config().tableName,
        Item: { ...tombstoneKey(workspaceId, glossaryId), deleted_at: nowSeconds() },
      },
    },
  ]);
  if (failed !== undefined) throw glossaryNotFound(glossaryId);
}

/**
 * The rules a new video, template generation or translation is made with, fixed at admission.
 * `applied: false` when the glossary was deleted (the request still works, without its rules).
 */
export interface GlossarySnapshot extends GlossaryRules {
  brand_glossary_id: string;
  applied: boolean;
}

/**
 * The snapshot for a request that names `glossaryId` in `param`: the glossary's rules now, an empty
 * snapshot for a deleted glossary, 400 `invalid_parameter` for an id the workspace never had.
 */
export async function glossaryForGeneration(
  workspaceId: string,
  glossaryId: string,
  param: string,
): Promise<GlossarySnapshot> {
  const item = ID_PATTERN.test(glossaryId)
    ? await getItem<GlossaryItem>(glossaryKey(workspaceId, glossaryId))
    : undefined;
  if (item) {
    const { terms, do_not_translate_terms, forced_translations } = item;
    return {
      brand_glossary_id: glossaryId,
      applied: true,
      terms,
      do_not_translate_terms,
      forced_translations,
    };
  }
  if (ID_PATTERN.test(glossaryId) && (await getItem(tombstoneKey(workspaceId, glossaryId)))) {
    return {
      brand_glossary_id: glossaryId,
      applied: false,
      terms: [],
      do_not_translate_terms: [],
      forced_translations: [],
    };
  }
  throw new InvalidParameterError(`Brand glossary ${glossaryId} does not exist in this workspace.`, param);
}
