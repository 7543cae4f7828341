// From a POST /conversation poll body and the community's `chat_poll` configuration to
// the rules a poll is stored with. With allow_override false the configuration replaces
// the request's values; otherwise a request value wins and the configuration fills the
// gaps. allow_vote_change left open everywhere follows the poll's type (false for
// instant polls). Each broken rule is a 400 naming it.
import { badRequest } from '../../lib/errors'
import {
	MAX_POLL_OPTIONS,
	NO_EXPIRY_FOR_DEFERRED,
	type PollConfiguration,
	pollTypes,
	type StoredPollConfiguration,
	selectStates,
} from './configuration/model'
import { type PollCreateInput, type PollDraft, PollType, SelectState } from './model'

/** Epoch seconds as the spec says; values >= 10^12 are milliseconds (the clients send ms). */
export const expiryToMs = (value: number) => (value >= 1e12 ? value : value * 1000)

const MAX_EXPIRY_MS = 1e14

export interface ConfigurationForPoll {
	effective: PollConfiguration
	stored: StoredPollConfiguration
}

export function resolvePollDraft(
	input: PollCreateInput,
	{ effective, stored }: ConfigurationForPoll,
	now: number,
): PollDraft {
	const question = (input.text ?? '').trim()
	if (question === '') throw badRequest('A poll needs its question in text')
	const requested = readRequested(input)
	const pick = <K extends keyof typeof requested>(field: K) =>
		effective.allow_override && requested[field] !== undefined ? requested[field] : effective[field]
	const pollType = pick('poll_type') as keyof typeof PollType
	const noExpiry = pick('no_poll_expiry') as boolean
	const options = checkedOptions(input.polls)
	const draft: PollDraft = {
		poll_type: PollType[pollType],
		multiple_select_state: SelectState[pick('multiple_select_state') as keyof typeof SelectState],
		multiple_select_no: pick('multiple_select_no') as number,
		is_anonymous: pick('is_anonymous') as boolean,
		allow_add_option: pick('allow_add_option') as boolean,
		allow_vote_change: voteChange(requested.allow_vote_change, effective, stored, pollType),
		expiry_time: null,
		options,
	}
	if (pollType === 'deferred' && noExpiry) throw badRequest(NO_EXPIRY_FOR_DEFERRED)
	if (!noExpiry) draft.expiry_time = checkedExpiry(input.expiry_time, now)
	if (draft.multiple_select_no < 1 || draft.multiple_select_no > options.length)
		throw badRequest(
			`multiple_select_no must be between 1 and the number of options (${options.length})`,
		)
	return draft
}

function voteChange(
	requested: boolean | undefined,
	effective: PollConfiguration,
	stored: StoredPollConfiguration,
	pollType: keyof typeof PollType,
): boolean {
	if (!effective.allow_override) return effective.allow_vote_change
	return requested ?? stored.allow_vote_change ?? pollType !== 'instant'
}

function readRequested(input: PollCreateInput) {
	return {
		poll_type: codeName(input.poll_type, pollTypes, 'poll_type'),
		multiple_select_state: codeName(
			input.multiple_select_state,
			selectStates,
			'multiple_select_state',
		),
		multiple_select_no: input.multiple_select_no,
		no_poll_expiry: input.no_poll_expiry,
		is_anonymous: input.is_anonymous,
		allow_add_option: input.allow_add_option,
		allow_vote_change: input.allow_vote_change,
	}
}

/** A numeric code (its index in `names`) or the name itself, as the name. */
function codeName<N extends string>(
	value: number | string | undefined,
	names: readonly N[],
	field: string,
): N | undefined {
	if (value === undefined) return undefined
	const name = typeof value === 'number' ? names[value] : names.find((n) => n === value)
	if (name === undefined)
		throw badRequest(`${field} must be one of ${names.map((n, i) => `${i} (${n})`).join(', ')}`)
	return name
}

function checkedOptions(polls: PollCreateInput['polls']): string[] {
	const texts = (polls ?? []).map((option) => option.text.trim())
	if (texts.length < 2 || texts.length > MAX_POLL_OPTIONS)
		throw badRequest(`A poll needs 2 to ${MAX_POLL_OPTIONS} options in polls (got ${texts.length})`)
	if (texts.some((text) => text === '')) throw badRequest('Poll options cannot be empty')
	const seen = new Set<string>()
	for (const text of texts) {
		const folded = text.toLowerCase()
		if (seen.has(folded)) throw badRequest(`Poll options must be distinct: "${text}" appears twice`)
		seen.add(folded)
	}
	return texts
}

function checkedExpiry(value: number | null | undefined, now: number): number {
	if (value === undefined || value === null)
		throw badRequest('expiry_time is required unless no_poll_expiry is true')
	if (!Number.isFinite(value) || value <= 0 || expiryToMs(value) > MAX_EXPIRY_MS)
		throw badRequest('expiry_time must be epoch seconds (or milliseconds)')
	const ms = Math.floor(expiryToMs(value))
	if (ms <= now) throw badRequest('expiry_time must be in the future')
	return ms
}
