// Projects and their single community; push-provider credentials.
import type { Db } from '../../lib/db'

export interface CommunityRow {
	id: number
	project_id: string
	name: string
}

export async function insertProject(
	db: Db,
	id: string,
	name: string,
	apiKeyHash: string,
): Promise<void> {
	await db`insert into projects (id, name, api_key_hash) values (${id}, ${name}, ${apiKeyHash})`
}

export async function insertCommunity(
	db: Db,
	projectId: string,
	name: string,
): Promise<CommunityRow> {
	const [row] = await db<CommunityRow[]>`
		insert into communities (project_id, name) values (${projectId}, ${name}) returning id, project_id, name`
	return row
}

export async function findCommunityByApiKeyHash(
	db: Db,
	apiKeyHash: string,
): Promise<CommunityRow | null> {
	const [row] = await db<CommunityRow[]>`
		select c.id, c.project_id, c.name from communities c join projects p on p.id = c.project_id
		where p.api_key_hash = ${apiKeyHash}`
	return row ?? null
}

export async function findCommunity(db: Db, id: number): Promise<CommunityRow | null> {
	const [row] = await db<
		CommunityRow[]
	>`select id, project_id, name from communities where id = ${id}`
	return row ?? null
}

export async function countProjects(db: Db): Promise<number> {
	const [row] = await db`select count(*)::int as n from projects`
	return row.n as number
}

export interface PushCredentialRow {
	provider_project_id: string
	client_email: string
	private_key_id: string
	sealed_file: string
	updated_at: Date
	/** why the provider refused these credentials (THIRD_PARTY_AUTH_ERROR), if it did */
	failing_reason?: string | null
	failing_since?: number | null
}

export async function upsertPushCredentials(
	db: Db,
	projectId: string,
	row: Omit<PushCredentialRow, 'updated_at'>,
) {
	await db`
		insert into push_credentials (project_id, provider_project_id, client_email, private_key_id, sealed_file, updated_at)
		values (${projectId}, ${row.provider_project_id}, ${row.client_email}, ${row.private_key_id}, ${row.sealed_file}, now())
		on conflict (project_id) do update set
			provider_project_id = excluded.provider_project_id, client_email = excluded.client_email,
			private_key_id = excluded.private_key_id, sealed_file = excluded.sealed_file,
			updated_at = excluded.updated_at,
			failing_reason = null, failing_since = null`
}

export async function findPushCredentials(
	db: Db,
	projectId: string,
): Promise<PushCredentialRow | null> {
	const [row] = await db<PushCredentialRow[]>`
		select provider_project_id, client_email, private_key_id, sealed_file, updated_at,
			failing_reason, failing_since::float8 as failing_since
		from push_credentials where project_id = ${projectId}`
	return row ?? null
}
