// Request and response schemas of the session routes. Lenient inputs are part of the
// schema: the customer id as `user_unique_id` or `uuid`, the API key as a header or an
// `apikey` body field, the refresh token in Authorization or the body.
import { t } from 'elysia'
import { Int, Ok, Shape } from '../../lib/response'
import { UserShape } from '../users/model'

export const InitiateBody = t.Object({
	user_unique_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
	/** the same customer id under its other name */
	uuid: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
	user_name: t.Optional(t.String({ maxLength: 200 })),
	image_url: t.Optional(t.String({ maxLength: 2000 })),
	is_guest: t.Optional(t.Boolean()),
	/** minutes; tokens live 24 h at most whatever this says (docs/auth.md) */
	token_expiry_beta: t.Optional(
		t.Integer({
			minimum: 1,
			maximum: 60 * 24 * 30,
			error: 'token_expiry_beta must be a whole number of minutes from 1 to 43200',
		}),
	),
	/** the API key when no x-api-key header is sent */
	apikey: t.Optional(t.String()),
})

export const RefreshBody = t.Optional(t.Object({ refresh_token: t.Optional(t.String()) }))

const Community = Shape({ id: Int(), name: t.String() })

/**
 * Both SDKs' declared session answers carry `app_access` (the member may use the app: a
 * banned member gets no session at all) and `has_answers` (the onboarding questions are
 * answered: plaza's communities ask none, so there is nothing left to answer).
 */
const Access = { app_access: t.Boolean(), has_answers: t.Boolean() }

export const InitiateReply = Ok(
	t.Object({
		access_token: t.String(),
		refresh_token: t.String(),
		user: UserShape,
		community: Community,
		...Access,
	}),
)
export const SessionReply = Ok(
	t.Object({ user: UserShape, community: t.Union([Community, t.Null()]), ...Access }),
)
export const TokensReply = Ok(t.Object({ access_token: t.String(), refresh_token: t.String() }))
export const LogoutReply = t.Object({ success: t.Literal(true), error_message: t.Null() })
