// Counts the SQL statements in src/ that touch a tenant table without naming community_id
// (issue #42, DESIGN §21): the tally of statements Citus cannot route to one shard by construction.
//
// What it counts, honestly: every template literal in src/**/*.ts (tests excluded) whose static
// text reads as SQL (select/insert/update/delete/with) and names a tenant table after
// from/join/into/update. Fragments (a `where` built apart and interpolated) count as their own
// template. A template "names the community" when its static text contains `community_id`; a
// condition only supplied by an interpolated fragment is not seen, so the count errs high there,
// and a statement whose community_id sits in one branch only errs low. Tenant tables are every
// table the migrations create, minus the reference tables below.
//
//   bun run scripts/tenant-sql-tally.ts            totals, then per file
//   bun run scripts/tenant-sql-tally.ts --list     also each statement's first line
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dir, '..')
const referenceTables = new Set(['projects', 'communities', 'push_credentials', 'owner_phones'])
// Distributed by another column (migrations/0199): a statement on them names that column.
const keyedOtherwise: Record<string, string> = { idempotency_keys: 'scope' }

function tenantTables(): Set<string> {
	const tables = new Set<string>()
	const dir = join(root, 'migrations')
	for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
		const text = readFileSync(join(dir, file), 'utf8')
		for (const m of text.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?([a-z_]+)/gi)) {
			const name = (m[1] as string).toLowerCase()
			if (!referenceTables.has(name)) tables.add(name)
		}
	}
	return tables
}

function sourceFiles(dir: string, out: string[] = []): string[] {
	for (const name of readdirSync(dir)) {
		const path = join(dir, name)
		if (name === 'node_modules' || name === 'web') continue
		if (statSync(path).isDirectory()) sourceFiles(path, out)
		else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path)
	}
	return out
}

/** The static text of every template literal in `src` (nested ones separately), with its line. */
function templates(src: string): { text: string; line: number }[] {
	const found: { text: string; line: number }[] = []
	let i = 0
	const lineAt = (pos: number) => src.slice(0, pos).split('\n').length

	// Reads code until an unmatched `}` (or the end), skipping strings and comments.
	function code(stopAtBrace: boolean): void {
		let depth = 0
		while (i < src.length) {
			const c = src[i]
			if (c === '/' && src[i + 1] === '/') {
				i = src.indexOf('\n', i)
				if (i < 0) i = src.length
			} else if (c === '/' && src[i + 1] === '*') {
				i = src.indexOf('*/', i + 2) + 2
				if (i < 2) i = src.length
			} else if (c === "'" || c === '"') {
				i++
				while (i < src.length && src[i] !== c) i += src[i] === '\\' ? 2 : 1
				i++
			} else if (c === '`') {
				template()
			} else if (c === '{') {
				depth++
				i++
			} else if (c === '}') {
				if (stopAtBrace && depth === 0) return
				depth--
				i++
			} else i++
		}
	}

	function template(): void {
		const start = i
		i++ // the opening backtick
		let text = ''
		while (i < src.length && src[i] !== '`') {
			if (src[i] === '\\') {
				text += src.slice(i, i + 2)
				i += 2
			} else if (src[i] === '$' && src[i + 1] === '{') {
				i += 2
				code(true)
				i++ // the closing brace
				text += ' ? '
			} else text += src[i++]
		}
		i++ // the closing backtick
		found.push({ text, line: lineAt(start) })
	}

	code(false)
	return found
}

const sqlVerb = /^\s*(select|insert|update|delete|with)\b|\b(from|join|into)\s+[a-z_]+/i

function main(): void {
	const tables = tenantTables()
	const tableRef = /\b(?:from|join|into|update)\s+(?:only\s+)?([a-z_]+)/gi
	const list = process.argv.includes('--list')
	let total = 0
	let lacking = 0
	const perFile: { file: string; total: number; lacking: number; lines: string[] }[] = []
	for (const path of sourceFiles(join(root, 'src'))) {
		const file = relative(root, path)
		const entry = { file, total: 0, lacking: 0, lines: [] as string[] }
		for (const t of templates(readFileSync(path, 'utf8'))) {
			if (!sqlVerb.test(t.text)) continue
			const named = [...t.text.matchAll(tableRef)].map((m) => (m[1] as string).toLowerCase())
			const tenant = named.filter((n) => tables.has(n))
			if (tenant.length === 0) continue
			entry.total++
			const key = tenant.every((n) => n in keyedOtherwise)
				? (keyedOtherwise[tenant[0] as string] as string)
				: 'community_id'
			if (!new RegExp(`\\b${key}\\b`, 'i').test(t.text)) {
				entry.lacking++
				const first = t.text.trim().split('\n')[0]?.trim().slice(0, 90)
				entry.lines.push(`    ${file}:${t.line}  ${first}`)
			}
		}
		if (entry.total > 0) perFile.push(entry)
		total += entry.total
		lacking += entry.lacking
	}
	console.log(`statements on tenant tables: ${total}; without community_id: ${lacking}`)
	for (const e of perFile.sort((a, b) => b.lacking - a.lacking)) {
		if (e.lacking === 0 && !list) continue
		console.log(`  ${String(e.lacking).padStart(3)} / ${String(e.total).padEnd(3)} ${e.file}`)
		if (list) for (const line of e.lines) console.log(line)
	}
}

main()
