// A child of the idle row: holds idle WebSockets in a process of its own (an open file
// each: one process may hold at most its open-files limit). Reads
// {base, clients: [{token, scope}]} from the JSON file named by its argument, connects
// them all, prints `held <n>`, and keeps them until it is killed.
import { connectAll, LiveClient } from './live-client'

const spec = (await Bun.file(process.argv[2] as string).json()) as {
	base: string
	clients: { token: string; scope: string }[]
}
const clients = spec.clients.map((c, n) => new LiveClient(n, c.token, [c.scope]))
await connectAll(
	clients,
	() => spec.base,
	(msg) => console.error(`[holder ${process.pid}] ${msg}`),
)
console.log(`held ${clients.length}`)
setInterval(() => {}, 60_000)
