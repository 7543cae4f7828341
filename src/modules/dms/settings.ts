// The community's DM rules (DESIGN section 19): whether members may message each other
// (CMs can always be messaged and always message), whether a DM between two members
// starts with a request, and how many new DMs a member may start per 24 h.
import { sql } from '../../lib/db'
import { type DmSettingsRow, findDmSettings, saveDmSettings } from './repo'

export const dmSettingsDefaults: DmSettingsRow = {
	enabled: true,
	requests_required: false,
	daily_limit: null,
}

export async function dmSettings(communityId: number): Promise<DmSettingsRow> {
	return (await findDmSettings(sql, communityId)) ?? dmSettingsDefaults
}

export interface DmSettingsPatch {
	enabled?: boolean
	requests_required?: boolean
	/** 0 or null: no limit */
	daily_limit?: number | null
}

/** Merges the given fields into the stored rules. */
export async function putDmSettings(communityId: number, patch: DmSettingsPatch) {
	const current = await dmSettings(communityId)
	const next: DmSettingsRow = {
		enabled: patch.enabled ?? current.enabled,
		requests_required: patch.requests_required ?? current.requests_required,
		daily_limit: patch.daily_limit === undefined ? current.daily_limit : patch.daily_limit || null,
	}
	await saveDmSettings(sql, communityId, next, Date.now())
	return next
}
