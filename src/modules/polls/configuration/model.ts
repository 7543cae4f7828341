// The `chat_poll` community configuration (SPEC "Poll configuration"): its fields,
// defaults and the request schemas of GET|PATCH /community/configurations.
import { t } from 'elysia'

export const CHAT_POLL = 'chat_poll'
export const configurationTypes = [CHAT_POLL] as const
export type ConfigurationType = (typeof configurationTypes)[number]

export const pollTypes = ['instant', 'deferred', 'open'] as const
export type PollTypeName = (typeof pollTypes)[number]
export const selectStates = ['exactly', 'at_max', 'at_least'] as const
export type SelectStateName = (typeof selectStates)[number]

export const MAX_POLL_OPTIONS = 10

export interface PollConfiguration {
	allow_override: boolean
	poll_type: PollTypeName
	no_poll_expiry: boolean
	allow_vote_change: boolean
	multiple_select_state: SelectStateName
	multiple_select_no: number
	is_anonymous: boolean
	allow_add_option: boolean
}

/** What a CM set; absent fields fall back to the defaults when read. */
export type StoredPollConfiguration = Partial<PollConfiguration>

/** allow_vote_change has no fixed default: false for instant polls, true otherwise. */
export const defaultVoteChange = (pollType: PollTypeName) => pollType !== 'instant'

export const pollConfigurationDefaults: Omit<PollConfiguration, 'allow_vote_change'> = {
	allow_override: true,
	poll_type: 'instant',
	no_poll_expiry: false,
	multiple_select_state: 'exactly',
	multiple_select_no: 1,
	is_anonymous: false,
	allow_add_option: false,
}

export const descriptions: Record<ConfigurationType, string> = {
	chat_poll: 'Defaults and rules of polls created in chatrooms',
}

export const NO_EXPIRY_FOR_DEFERRED = 'You cannot set no_poll_expiry to true for deferred polls.'

export const ConfigurationQuery = t.Object({
	configuration_types: t.Optional(t.String({ maxLength: 200 })),
})

// `value` is checked field by field by the service, so each message names its field.
export const PatchConfigurationBody = t.Object({
	type: t.String({ maxLength: 50 }),
	value: t.Unknown(),
})
