// Response schemas of a user as feeds and lists show it, and of the `users` map keyed
// by uuid (DESIGN section 3). Extra fields are allowed, never stripped.
import { t } from 'elysia'
import { Int, Shape } from '../../lib/response'

export const UserShape = Shape(
	{
		id: Int(),
		uuid: t.String(),
		name: t.String(),
		image_url: t.Union([t.String(), t.Null()]),
		user_unique_id: t.Union([t.String(), t.Null()]),
		custom_title: t.Union([t.String(), t.Null()]),
		sdk_client_info: Shape({ community: Int(), uuid: t.String() }),
		is_guest: t.Boolean(),
		is_deleted: t.Boolean(),
	},
	'a user (feed form)',
)

/** `{<uuid>: user}` */
export const UsersMap = t.Record(t.String(), UserShape)

/** A member as the SDKs' member routes show it (users/present.ts presentSdkMember). */
export const SdkMember = Shape(
	{
		...UserShape.properties,
		state: Int(),
		is_owner: t.Boolean(),
	},
	'a member (feed-js User, chat-js Member)',
)
