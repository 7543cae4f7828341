// Response schemas: what a route answers, for /openapi and so that Elysia checks the
// presenters against them (a presenter that drifts fails the tests, not a client).
// Objects allow extra properties so a check never silently strips a field.
import { type IntegerOptions, type TProperties, type TSchema, Type } from '@sinclair/typebox'
import { t } from 'elysia'

/** A JSON object with these fields (more are allowed and kept). */
export const Shape = <P extends TProperties>(properties: P, description?: string) =>
	t.Object(properties, { additionalProperties: true, description })

/**
 * An integer in an answer. Elysia's `t.Integer` is a Transform (a request may send
 * "12" for 12), and one Transform in a response schema makes Elysia run TypeBox's
 * dynamic `Value.Encode` walk over every answer before its compiled check (7 % of
 * POST /feed/post's server time); an answer only ever holds numbers, so it needs none.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options)

/** `{success: true, error_message: null, data}`, as lib/envelope ok() answers. */
export const Ok = <D extends TSchema>(data: D) =>
	t.Object({ success: t.Literal(true), error_message: t.Null(), data })

/** Topic and settings answers: the payload at the top level and again under `data`. */
export const OkTwice = <P extends TProperties>(payload: P) =>
	t.Object({
		success: t.Literal(true),
		error_message: t.Null(),
		...payload,
		data: t.Object(payload),
	})
