// /openapi and /openapi/json (@elysiajs/openapi), with request bodies documented.
// The plugin lists a body's content types from the route's named parsers; every body
// here goes through our one function parser (lib/input-limits, app.ts onParse), so it
// found none and printed `content: {}`. The spec is completed once here from the
// routes' body schemas, with the types that parser reads.
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'

const BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded']

interface Operation {
	requestBody?: { content?: Record<string, unknown> }
}
type Spec = { paths?: Record<string, Record<string, Operation>> }

const openapiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

interface Route {
	method: string
	path: string
	hooks: { body?: unknown }
}

function documentBodies(spec: Spec, routes: Route[]) {
	for (const route of routes) {
		const body = route.hooks.body
		const operation = spec.paths?.[openapiPath(route.path)]?.[route.method.toLowerCase()]
		const content = operation?.requestBody?.content
		if (!body || !content || Object.keys(content).length > 0) continue
		for (const type of BODY_TYPES) content[type] = { schema: body }
	}
}

export const openapiDocs = new Elysia({ name: 'openapi-docs' })
	// A local hook: only the plugin's own two routes pass here.
	.onAfterHandle(({ route, response }) => {
		if (!route.endsWith('/json')) return
		// Every route of the app, as the plugin reads them (protected in the types only).
		const routes = (openapiDocs as unknown as { getGlobalRoutes(): Route[] }).getGlobalRoutes()
		documentBodies(response as Spec, routes)
	})
	.use(openapi({ path: '/openapi', documentation: { info: { title: 'plaza', version: '0.1.0' } } }))
