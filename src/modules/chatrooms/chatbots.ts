// GET /community/chatbot (chat-js getAIChatbots): the community's bot members. plaza has
// no bot members — nothing makes a member one — so the list is empty, in the shape the
// SDK parses (`users`, `total_chatbots`, `page`, `total_pages`).
export function chatbots(page = 1) {
	return { page, total_pages: 0, total_chatbots: 0, users: [] as unknown[] }
}
