// How much JSON the process wrote while some work ran: tests of refusals that must never write a huge body as JSON.

/** The longest text JSON.stringify returned while `work` ran (anything in this process: a test server runs in it). */
export async function longestJsonWritten(work: () => Promise<unknown>): Promise<number> {
  const original = JSON.stringify
  let longest = 0
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    const text = original(...args)
    if (typeof text === 'string' && text.length > longest) longest = text.length
    return text
  }) as typeof JSON.stringify
  try {
    await work()
  } finally {
    JSON.stringify = original
  }
  return longest
}
