// Each test file makes its own project and community so files never share state.

import { type Role, signAccessToken } from '../../src/lib/tokens'
import { createProject } from '../../src/modules/projects/service'
import { findUserByUuid, setRole } from '../../src/modules/users/repo'
import { sql } from '../support/db'
import { api } from './http'

let counter = 0

export interface TestCommunity {
	apiKey: string
	communityId: number
	projectId: string
	ownerCountryCode: string
	ownerMobile: string
}

export interface TestUser {
	token: string
	refreshToken: string
	uuid: string
	id: number
	name: string
	uniqueId: string
}

export async function newCommunity(name = 'test'): Promise<TestCommunity> {
	const ownerMobile = `7${String(Date.now()).slice(-6)}${String(process.pid % 100).padStart(2, '0')}${counter++}`
	const project = await createProject({ name, ownerCountryCode: '1', ownerMobile })
	return {
		apiKey: project.api_key,
		communityId: project.community_id,
		projectId: project.project_id,
		ownerCountryCode: '1',
		ownerMobile,
	}
}

/** The owner's access token as /otp/verify would sign it, and the owner's uuid. */
export async function ownerSession(
	community: TestCommunity,
): Promise<{ token: string; uuid: string }> {
	const [row] =
		await sql`select id::float8 as id, uuid from users where community_id = ${community.communityId} and role = 'owner'`
	const token = await signAccessToken({
		sub: row.uuid,
		uid: row.id,
		cid: community.communityId,
		role: 'owner',
	})
	return { token, uuid: row.uuid }
}

export const ownerToken = async (community: TestCommunity) => (await ownerSession(community)).token

/** A user through POST /sdk/initiate; `role: 'cm'` promotes it (setup only). */
export async function newUser(
	community: TestCommunity,
	options: { name?: string; role?: Role } = {},
): Promise<TestUser> {
	const uniqueId = `u-${Date.now()}-${counter++}`
	const name = options.name ?? `User ${counter}`
	const reply = await api('POST', '/sdk/initiate', {
		apiKey: community.apiKey,
		body: { user_unique_id: uniqueId, user_name: name },
	})
	if (reply.status !== 200) throw new Error(`initiate failed: ${JSON.stringify(reply.body)}`)
	const { access_token, refresh_token, user } = reply.body.data
	if (options.role && options.role !== 'member') {
		const row = await findUserByUuid(sql, community.communityId, user.uuid)
		await setRole(sql, community.communityId, row!.id, options.role)
	}
	return {
		token: access_token,
		refreshToken: refresh_token,
		uuid: user.uuid,
		id: user.id,
		name,
		uniqueId,
	}
}
