// The `chat_poll` configuration: read with defaults filled in, and patched by merging
// the given fields into the stored ones. Each field is checked on its own (400 naming
// it) and the merged result must not pair no_poll_expiry with deferred polls.
import { type Db, sql } from '../../../lib/db'
import { badRequest } from '../../../lib/errors'
import {
	CHAT_POLL,
	type ConfigurationType,
	configurationTypes,
	defaultVoteChange,
	descriptions,
	NO_EXPIRY_FOR_DEFERRED,
	type PollConfiguration,
	pollConfigurationDefaults,
	pollTypes,
	type StoredPollConfiguration,
	selectStates,
} from './model'
import { findConfiguration, lockConfiguration, saveConfiguration } from './repo'

export interface ConfigurationView {
	type: ConfigurationType
	description: string
	value: PollConfiguration
}

/** Defaults under what a CM stored; allow_vote_change follows poll_type until it is set. */
export function effectiveConfiguration(stored: StoredPollConfiguration): PollConfiguration {
	const merged = { ...pollConfigurationDefaults, ...stored }
	return {
		...merged,
		allow_vote_change: stored.allow_vote_change ?? defaultVoteChange(merged.poll_type),
	}
}

export async function pollConfiguration(communityId: number): Promise<PollConfiguration> {
	return (await pollConfigurationForPoll(communityId)).effective
}

/** The effective configuration and what a CM set explicitly (poll creation needs both). */
export async function pollConfigurationForPoll(communityId: number, db: Db = sql) {
	const stored = readStored((await findConfiguration(db, communityId, CHAT_POLL)) ?? {})
	return { effective: effectiveConfiguration(stored), stored }
}

/** `configuration_types`: a comma list or a JSON array; absent means every type. */
export function parseConfigurationTypes(raw: string | undefined): ConfigurationType[] {
	if (raw === undefined || raw.trim() === '') return [...configurationTypes]
	let names: unknown
	try {
		names = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',')
	} catch {
		throw badRequest('configuration_types must be a comma-separated list or a JSON array')
	}
	if (!Array.isArray(names)) throw badRequest('configuration_types must be a list')
	return [...new Set(names.map((name) => String(name).trim()))].map(configurationType)
}

function configurationType(name: string): ConfigurationType {
	if (!(configurationTypes as readonly string[]).includes(name))
		throw badRequest(
			`Unknown configuration type: ${name.slice(0, 50)} (known: ${configurationTypes.join(', ')})`,
		)
	return name as ConfigurationType
}

export async function listConfigurations(
	communityId: number,
	types: ConfigurationType[],
): Promise<ConfigurationView[]> {
	const views: ConfigurationView[] = []
	for (const type of types)
		views.push({
			type,
			description: descriptions[type],
			value: await pollConfiguration(communityId),
		})
	return views
}

export async function patchConfiguration(
	communityId: number,
	type: string,
	value: unknown,
): Promise<ConfigurationView> {
	const checkedType = configurationType(type)
	const patch = parsePollConfigurationPatch(value)
	const now = Date.now()
	const merged = await sql.begin(async (tx) => {
		const stored = {
			...readStored(await lockConfiguration(tx, communityId, checkedType, now)),
			...patch,
		}
		const effective = effectiveConfiguration(stored)
		if (effective.poll_type === 'deferred' && effective.no_poll_expiry)
			throw badRequest(NO_EXPIRY_FOR_DEFERRED)
		await saveConfiguration(tx, communityId, checkedType, stored, now)
		return effective
	})
	return { type: checkedType, description: descriptions[checkedType], value: merged }
}

type FieldCheck = (value: unknown) => boolean

const isBoolean: FieldCheck = (value) => typeof value === 'boolean'
const oneOf =
	(names: readonly string[]): FieldCheck =>
	(value) =>
		typeof value === 'string' && names.includes(value)

const fieldChecks: Record<keyof PollConfiguration, [FieldCheck, string]> = {
	allow_override: [isBoolean, 'must be true or false'],
	poll_type: [oneOf(pollTypes), `must be one of ${pollTypes.join(', ')}`],
	no_poll_expiry: [isBoolean, 'must be true or false'],
	allow_vote_change: [isBoolean, 'must be true or false'],
	multiple_select_state: [oneOf(selectStates), `must be one of ${selectStates.join(', ')}`],
	multiple_select_no: [
		(value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 10,
		'must be an integer from 1 to 10',
	],
	is_anonymous: [isBoolean, 'must be true or false'],
	allow_add_option: [isBoolean, 'must be true or false'],
}

/** The known fields of a PATCH `value`, each checked; unknown fields are ignored (lenient bodies). */
export function parsePollConfigurationPatch(value: unknown): StoredPollConfiguration {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw badRequest('value must be an object of chat_poll configuration fields')
	const patch: Record<string, unknown> = {}
	for (const [field, [check, problem]] of Object.entries(fieldChecks)) {
		if (!(field in value)) continue
		const given = (value as Record<string, unknown>)[field]
		if (!check(given)) throw badRequest(`value.${field} ${problem}`)
		patch[field] = given
	}
	return patch as StoredPollConfiguration
}

/** Stored values were checked on the way in; anything else (a hand edit) is dropped. */
function readStored(stored: Record<string, unknown>): StoredPollConfiguration {
	const kept: Record<string, unknown> = {}
	for (const [field, [check]] of Object.entries(fieldChecks))
		if (field in stored && check(stored[field])) kept[field] = stored[field]
	return kept as StoredPollConfiguration
}
