import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import type { z } from 'zod';

/** Deepest element nesting accepted in a request body; real resources need under ten. */
export const MAX_XML_DEPTH = 32;

export class XmlInputError extends Error {}

const IRREGULAR: Record<string, string> = {
  original_media: 'medium',
  media: 'medium',
  categories: 'category',
  addresses: 'address',
  statuses: 'status',
  items: 'item',
};

/** The element name of one item in a list field: `headlines` → `headline`, `categories` → `category`. */
export function singular(listName: string): string {
  if (IRREGULAR[listName]) return IRREGULAR[listName];
  if (listName.endsWith('ies')) return `${listName.slice(0, -3)}y`;
  if (listName.endsWith('s')) return listName.slice(0, -1);
  return 'item';
}

function toXmlTree(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return { [singular(key)]: value.map((v) => toXmlTree(v, singular(key))) };
  if (value instanceof Date) return value.toISOString();
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toXmlTree(v, k)]));
  }
  return String(value);
}

const builder = new XMLBuilder({ format: false, suppressEmptyNode: true, processEntities: true });

/** Serializes an answer under the `<response>` root (or `root`); lists become a wrapper holding singular items. */
export function toXml(payload: unknown, root = 'response'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [root]: toXmlTree(payload, root) })}`;
}

function checkDepth(text: string): void {
  let depth = 0;
  const tag = /<(\/?)[A-Za-z_][^>]*?(\/?)>/g;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    if (m[1]) depth--;
    else if (!m[2]) depth++;
    if (depth > MAX_XML_DEPTH) throw new XmlInputError(`XML nested deeper than ${MAX_XML_DEPTH} elements`);
  }
}

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false, // the zod schema converts numbers and booleans, so XML and JSON bodies agree
  // Text must come out as sent: `&amp;` is `&`. Only the predefined entities and character
  // references (`&#38;`, and HTML names) are decoded; DOCTYPE and ENTITY declarations are refused
  // before parsing (parseXml), so there is no billion laughs and no external entity.
  processEntities: true,
  htmlEntities: true,
  trimValues: true,
});

/**
 * Parses an XML request body into plain objects and strings, safely: no DOCTYPE or entity
 * declarations, a depth limit, and well-formedness checked before anything else.
 */
export function parseXml(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlInputError('DOCTYPE and ENTITY declarations are not allowed');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlInputError(`malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
  checkDepth(text);
  const parsed = parser.parse(text) as Record<string, unknown>;
  if (!parsed || typeof parsed !== 'object' || Object.keys(parsed).length !== 1) {
    throw new XmlInputError('an XML body must have exactly one root element, named after the resource');
  }
  return parsed;
}

type AnySchema = z.ZodType;
interface Def {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  getter?: () => AnySchema;
}
const defOf = (s: AnySchema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Shapes a parsed XML body the way its zod schema expects, so one schema validates XML and JSON:
 * a list wrapper's children become array items, and digits or true/false become numbers and booleans.
 * Anything that does not fit is left as it is, for the schema to report.
 */
export function coerceXmlToSchema(schema: AnySchema, value: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      if (value === '' && def.type === 'nullable' && defOf(def.innerType!).type !== 'string') return null;
      return coerceXmlToSchema(def.innerType!, value);
    case 'pipe':
      return coerceXmlToSchema(def.in!, value);
    case 'lazy':
      return coerceXmlToSchema(def.getter!(), value);
    case 'object': {
      if (value === '') return {};
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = def.shape!;
      const obj = value as Record<string, unknown>;
      return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, shape[k] ? coerceXmlToSchema(shape[k], v) : v]));
    }
    case 'array': {
      if (value === '') return [];
      const items = Array.isArray(value)
        ? value
        : value && typeof value === 'object'
          ? Object.values(value as Record<string, unknown>).flatMap((v) => (Array.isArray(v) ? v : [v]))
          : [value];
      return items.map((item) => coerceXmlToSchema(def.element!, item));
    }
    case 'number':
    case 'int':
      return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}
