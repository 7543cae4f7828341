// The dashboard's browser code, bundled by Bun from web/ the first time it is asked
// for and kept in memory: `npm start` needs no build step and nothing built is
// committed. A bundling error is a 500 worth seeing at once, so it is not cached.
import { join } from 'node:path'

const web = join(import.meta.dir, 'web')
const uplotCss = join(import.meta.dir, '../../../node_modules/uplot/dist/uPlot.min.css')

export interface Asset {
	body: string
	type: string
}

let script: Promise<Asset> | undefined
let styles: Promise<Asset> | undefined

async function bundle(): Promise<Asset> {
	const result = await Bun.build({
		entrypoints: [join(web, 'main.ts')],
		target: 'browser',
		minify: true,
	})
	if (!result.success) throw new AggregateError(result.logs, 'dashboard bundle failed')
	return { body: await result.outputs[0].text(), type: 'text/javascript; charset=utf-8' }
}

async function stylesheet(): Promise<Asset> {
	const parts = await Promise.all([
		Bun.file(uplotCss).text(),
		Bun.file(join(web, 'style.css')).text(),
	])
	return { body: parts.join('\n'), type: 'text/css; charset=utf-8' }
}

export function appScript(): Promise<Asset> {
	script ??= bundle().catch((error) => {
		script = undefined
		throw error
	})
	return script
}

export function appStyles(): Promise<Asset> {
	styles ??= stylesheet()
	return styles
}

export const shell = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>plaza dashboard</title>
<link rel="stylesheet" href="/dashboard/assets/app.css">
</head>
<body>
<div id="app"><p class="loading">Loading the dashboard…</p></div>
<noscript>The plaza dashboard needs JavaScript.</noscript>
<script type="module" src="/dashboard/assets/app.js"></script>
</body>
</html>`
