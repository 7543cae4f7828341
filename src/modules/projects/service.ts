// Creating projects (operator script, demo bootstrap) and resolving API keys.
import { sha256, randomToken } from '../../lib/crypto'
import { sql } from '../../lib/db'
import { unauthorized } from '../../lib/errors'
import { newId, newUuid } from '../../lib/ids'
import { insertUser } from '../users/repo'
import { type CommunityRow, findCommunityByApiKeyHash, insertCommunity, insertProject } from './repo'

export interface CreatedProject {
	api_key: string
	community_id: number
	project_id: string
}

export async function createProject(input: {
	name: string
	ownerCountryCode: string
	ownerMobile: string
}): Promise<CreatedProject> {
	const apiKey = `plz_${randomToken(24)}`
	const projectId = newId()
	return sql.begin(async (tx) => {
		await insertProject(tx, projectId, input.name, sha256(apiKey))
		const community = await insertCommunity(tx, projectId, input.name)
		await insertUser(tx, {
			uuid: newUuid(),
			community_id: community.id,
			user_unique_id: `owner:${input.ownerCountryCode}-${input.ownerMobile}`,
			name: 'Owner',
			image_url: '',
			is_guest: false,
			role: 'owner',
			country_code: input.ownerCountryCode,
			mobile_no: input.ownerMobile,
		})
		return { api_key: apiKey, community_id: community.id, project_id: projectId }
	})
}

export async function communityForApiKey(apiKey: string | undefined | null): Promise<CommunityRow> {
	if (!apiKey) throw unauthorized('Missing x-api-key')
	const community = await findCommunityByApiKeyHash(sql, sha256(apiKey))
	if (!community) throw unauthorized('Unknown API key')
	return community
}

export const presentCommunity = (community: CommunityRow) => ({ id: community.id, name: community.name })
