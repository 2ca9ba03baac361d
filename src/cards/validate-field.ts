import type { InfoCollectLabels } from '../labels/label-types.js';
import type { InfoCollectField } from '../protocol/types.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?\d{5,15}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A field's value as the agent gets it, or the reason (in the reader's words) it cannot be sent. */
export interface FieldResult {
  value?: string | number;
  error?: string;
}

/** Checks one answer of an information-collection card; an empty optional field gives no value. */
export function validateField(field: InfoCollectField, raw: string, labels: InfoCollectLabels): FieldResult {
  const text = raw.trim();
  if (!text) return field.required ? { error: labels.required } : {};
  switch (field.type) {
    case 'email':
      return EMAIL.test(text) ? { value: text } : { error: labels.invalidEmail };
    case 'phone':
      return PHONE.test(text.replace(/[\s().-]/g, '')) ? { value: text } : { error: labels.invalidPhone };
    case 'number': {
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { error: labels.invalidNumber };
    }
    case 'date':
      return DATE.test(text) && !Number.isNaN(Date.parse(text)) ? { value: text } : { error: labels.invalidDate };
    case 'select':
      return !field.options?.length || field.options.includes(text) ? { value: text } : { error: labels.invalidOption };
    default:
      return { value: text };
  }
}
