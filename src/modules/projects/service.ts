// Creating projects (operator script, demo bootstrap), resolving API keys, and the
// project's push-provider credentials (sealed at rest, the private key never shown).
import { createPrivateKey } from 'node:crypto'
import { decrypt, encrypt, randomToken, sha256 } from '../../lib/crypto'
import { sql } from '../../lib/db'
import { badRequest, conflict, forbidden, unauthorized } from '../../lib/errors'
import { newId, newUuid } from '../../lib/ids'
import { requireRole, type Session } from '../auth/session'
import { insertOwnerPhone, insertUser, type UserRow } from '../users/repo'
import { type ServiceAccount, ServiceAccountFile } from './model'
import {
	type CommunityRow,
	findCommunityByApiKeyHash,
	findPushCredentials,
	insertCommunity,
	insertProject,
	type PushCredentialRow,
	upsertPushCredentials,
} from './repo'

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
	const created = sql.begin(async (tx) => {
		await insertProject(tx, projectId, input.name, sha256(apiKey))
		const community = await insertCommunity(tx, projectId, input.name)
		const owner = await insertUser(tx, {
			uuid: newUuid(),
			community_id: community.id,
			// The owner is named by its phone number only: no customer id that
			// POST /sdk/initiate could address.
			user_unique_id: null,
			name: 'Owner',
			image_url: '',
			is_guest: false,
			role: 'owner',
			country_code: input.ownerCountryCode,
			mobile_no: input.ownerMobile,
		})
		await insertOwnerPhone(tx, owner as UserRow, input.ownerCountryCode, input.ownerMobile)
		return { api_key: apiKey, community_id: community.id, project_id: projectId }
	})
	// An owner number logs in to exactly one project (the OTP login finds it by number;
	// owner_phones holds it on Citus too, where users_owner_mobile is per community).
	return created.catch((error) => {
		if (/^(users_owner_mobile|owner_phones_pkey)(_\d+)?$/.test(brokenKey(error))) {
			throw conflict(
				`The number ${input.ownerCountryCode}-${input.ownerMobile} already owns a project`,
			)
		}
		throw error
	})
}

/**
 * The unique index a 23505 broke. Citus relays a shard's error without constraint_name;
 * its message names the shard's index (the index name and the shard id).
 */
function brokenKey(error: unknown): string {
	const e = error as { code?: string; constraint_name?: string; message?: string }
	if (e.code !== '23505') return ''
	return e.constraint_name ?? /unique constraint "([^"]+)"/.exec(e.message ?? '')?.[1] ?? ''
}

// Every app launch (POST /sdk/initiate) names its API key: the project it belongs to
// is kept in process memory for a minute (a key is never re-assigned to another
// project; unknown keys are not kept, so a new project's key works at once).
const KEY_CACHE_MS = 60_000
const KEY_CACHE_MAX = 10_000
const communityByKeyHash = new Map<string, { community: CommunityRow; until: number }>()

export async function communityForApiKey(apiKey: string | undefined | null): Promise<CommunityRow> {
	if (!apiKey) throw unauthorized('Missing x-api-key')
	const hash = sha256(apiKey)
	const cached = communityByKeyHash.get(hash)
	if (cached && cached.until > Date.now()) return cached.community
	const community = await findCommunityByApiKeyHash(sql, hash)
	if (!community) throw unauthorized('Unknown API key')
	if (communityByKeyHash.size >= KEY_CACHE_MAX) communityByKeyHash.clear()
	communityByKeyHash.set(hash, { community, until: Date.now() + KEY_CACHE_MS })
	return community
}

export const presentCommunity = (community: CommunityRow) => ({
	id: community.id,
	name: community.name,
})

/** The dashboard routes need the owner's token, the project's own API key and `x-platform-type: dashboard`. */
export async function assertDashboardProject(
	session: Session,
	apiKey: string | undefined,
	platformType: string | undefined,
) {
	if (platformType?.trim().toLowerCase() !== 'dashboard')
		throw badRequest('x-platform-type must be dashboard')
	requireRole(session, 'owner')
	const community = await communityForApiKey(apiKey)
	if (community.id !== session.communityId)
		throw forbidden('The x-api-key does not belong to your project')
	return community
}

function assertServiceAccount(file: ServiceAccount): ServiceAccount {
	if (file.type !== 'service_account')
		throw badRequest('push_service_account_file.type must be service_account')
	// Keys pasted with escaped newlines are common; a PEM needs real ones.
	const privateKey = file.private_key.includes('\\n')
		? file.private_key.replaceAll('\\n', '\n')
		: file.private_key
	try {
		createPrivateKey({ key: privateKey, format: 'pem' })
	} catch {
		throw badRequest('push_service_account_file.private_key is not a valid PEM private key')
	}
	for (const name of [
		'auth_uri',
		'token_uri',
		'auth_provider_x509_cert_url',
		'client_x509_cert_url',
	] as const) {
		if (!URL.canParse(file[name]) || !/^https?:$/.test(new URL(file[name]).protocol)) {
			throw badRequest(`push_service_account_file.${name} must be an http(s) URL`)
		}
	}
	return { ...file, private_key: privateKey }
}

const presentPushCredentials = (row: PushCredentialRow | null) =>
	row && {
		project_id: row.provider_project_id,
		client_email: row.client_email,
		private_key_id: row.private_key_id,
		updated_at: row.updated_at.getTime(),
		is_failing: !!row.failing_reason,
		failing_reason: row.failing_reason ?? null,
		failing_since: row.failing_since ?? null,
	}

/** Stores the file sealed with AES-256-GCM; only non-secret fields stay readable. */
export async function savePushCredentials(community: CommunityRow, file: ServiceAccount) {
	const valid = assertServiceAccount(file)
	const pick: Record<string, string> = {}
	for (const name of Object.keys(ServiceAccountFile.properties))
		pick[name] = valid[name as keyof ServiceAccount]
	await upsertPushCredentials(sql, community.project_id, {
		provider_project_id: valid.project_id,
		client_email: valid.client_email,
		private_key_id: valid.private_key_id,
		sealed_file: encrypt(JSON.stringify(pick)),
	})
	return describeProject(community)
}

export async function describeProject(community: CommunityRow) {
	const row = await findPushCredentials(sql, community.project_id)
	return {
		project: { id: community.project_id, name: community.name, community_id: community.id },
		push_service_account_file: presentPushCredentials(row),
	}
}

/** The decrypted service account of a project, for sending pushes; null when none is stored. */
export async function loadServiceAccount(projectId: string): Promise<ServiceAccount | null> {
	const row = await findPushCredentials(sql, projectId)
	return row ? (JSON.parse(decrypt(row.sealed_file)) as ServiceAccount) : null
}
