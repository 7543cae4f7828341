// Server process of the chat benchmark: the real app (the ceiling is bare-server.ts, in
// its own process) with the push engine, which expands each new message's notice
// (conversations/notices.ts): who hears of a message is resolved after its commit, and
// that work belongs on the machine the write rows measure. Prints `listening <port>`.
import { Elysia } from 'elysia'
import { app } from '../../src/app'
import { startPush } from '../../src/push/engine'

const server = new Elysia().use(app).listen({ port: 0 })
startPush()

console.log(`listening ${server.server?.port}`)
