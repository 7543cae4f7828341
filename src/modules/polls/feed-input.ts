// A feed poll's attachment meta read as the chat poll's creation fields (model.ts
// PollCreateInput), so one draft rule (draft.ts) judges both faces. feed-js sends
// title, options (texts), poll_type and multiple_select_state by name,
// multiple_select_number; the chat poll's names (polls: [{text}], multiple_select_no)
// are read too. The meta is free JSON: each field of the wrong type is a 400 naming it.
import { badRequest } from '../../lib/errors'
import { MAX_OPTION_TEXT, type PollCreateInput } from './model'

/** The poll fields of an attachment's meta as the chat poll's creation fields; 400 naming a field of the wrong type. */
export function pollInputOf(meta: Record<string, unknown>, index: number): PollCreateInput {
	const field = (name: string) => `attachments.${index}.meta_data.${name}`
	const text = (name: string): string | undefined => {
		const value = meta[name]
		if (value === undefined || value === null) return undefined
		if (typeof value !== 'string' || value.length > MAX_OPTION_TEXT * 10)
			throw badRequest(
				`${field(name)} must be a string of at most ${MAX_OPTION_TEXT * 10} characters`,
			)
		return value
	}
	const flag = (name: string): boolean | undefined => {
		const value = meta[name]
		if (value === undefined || value === null) return undefined
		if (typeof value !== 'boolean') throw badRequest(`${field(name)} must be a boolean`)
		return value
	}
	const integer = (name: string): number | undefined => {
		const value = meta[name]
		if (value === undefined || value === null) return undefined
		if (typeof value !== 'number' || !Number.isSafeInteger(value))
			throw badRequest(`${field(name)} must be an integer`)
		return value
	}
	const code = (name: string): number | string | undefined => {
		const value = meta[name]
		if (value === undefined || value === null) return undefined
		if (typeof value === 'string' && value.length <= 20) return value
		if (typeof value === 'number' && Number.isSafeInteger(value)) return value
		throw badRequest(`${field(name)} must be a name or a number`)
	}
	return {
		text: text('title') ?? text('poll_question') ?? text('text'),
		poll_type: code('poll_type'),
		multiple_select_state: code('multiple_select_state'),
		multiple_select_no: integer('multiple_select_number') ?? integer('multiple_select_no'),
		is_anonymous: flag('is_anonymous'),
		allow_add_option: flag('allow_add_option'),
		allow_vote_change: flag('allow_vote_change'),
		no_poll_expiry: flag('no_poll_expiry'),
		expiry_time: expiryOf(meta.expiry_time, field('expiry_time')),
		polls: optionsOf(meta.options ?? meta.polls, field('options')),
	}
}

function expiryOf(value: unknown, name: string): number | null | undefined {
	if (value === undefined || value === null) return value
	if (typeof value !== 'number') throw badRequest(`${name} must be a number (epoch ms or seconds)`)
	return value
}

/** feed-js sends option texts; the chat form sends {text} objects. */
function optionsOf(value: unknown, name: string): { text: string }[] | undefined {
	if (value === undefined || value === null) return undefined
	if (!Array.isArray(value) || value.length > 50)
		throw badRequest(`${name} must be a list of options`)
	return value.map((option, i) => {
		const text = typeof option === 'string' ? option : (option as { text?: unknown })?.text
		if (typeof text !== 'string' || text.length > MAX_OPTION_TEXT)
			throw badRequest(`${name}.${i} must be a text of at most ${MAX_OPTION_TEXT} characters`)
		return { text }
	})
}
