// POST /logs: the error reports chat-js's ErrorLogging.pushLogs sends (its Log, snake-cased
// by the SDK). Every field is bounded, so one request costs at most its 64 KB body.
import { t } from 'elysia'

export const MAX_LOGS_PER_REQUEST = 50
export const LOGS_BODY_BYTES = 64 * 1024

const Text = (maxLength: number) => t.Optional(t.Nullable(t.String({ maxLength })))
const Num = t.Optional(t.Nullable(t.Number()))

const ClientLog = t.Object({
	timestamp: Num,
	// LMSeverity: 0 INFO … 7 EMERGENCY, 8 DEFAULT
	severity: t.Optional(t.Nullable(t.Integer({ minimum: 0, maximum: 8 }))),
	device_meta: t.Optional(
		t.Nullable(
			t.Object({
				os: Text(100),
				// the SDK snake-cases versionOS to version_o_s
				version_o_s: Text(100),
				device_name: Text(200),
				screen_height: Num,
				screen_width: Num,
				wifi: t.Optional(t.Nullable(t.Boolean())),
			}),
		),
	),
	stack_trace: t.Optional(t.Nullable(t.Object({ exception: Text(2_000), trace: Text(16_000) }))),
	sdk_meta: t.Optional(
		t.Nullable(t.Object({ data_layer_version: Text(50), core_version: Text(50) })),
	),
})

export const PushLogsBody = t.Object({
	logs: t.Array(ClientLog, { maxItems: MAX_LOGS_PER_REQUEST }),
})

export type PushLogsInput = typeof PushLogsBody.static
