/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the engine's device state file parser
 * (eng_state_parse, eng_state_json.c), fed the input as the file's text
 * from an exact-length copy (no NUL after it, as read_file hands it
 * over), so a read past the end is caught by ASan.  Whatever it accepts
 * must survive the engine's own write: parse -> format -> parse gives
 * the same devices, rejects none of them, and formats to the same text
 * again (a state file the engine writes is one it can read back).
 * The same input is also replayed as a journal (eng_state_journal_apply)
 * over an empty state: whatever it keeps formats to a file that reads
 * back with as many devices.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct eng_state_doc first, second;

/* A broken invariant: abort, which libFuzzer reports with the input. */
static void broken(void)
{
	abort();
}

/* What the engine writes of @doc reads back: as many devices, none
 * rejected; with @exact, the same devices, next id and text again. */
static void check_roundtrip(const struct eng_state_doc *doc, int exact)
{
	char *text = eng_state_format(doc), *again;

	if (!text)
		abort();
	if (eng_state_parse(text, strlen(text), &second, NULL, NULL) < 0 ||
	    second.rejected != 0 || second.count != doc->count)
		broken();
	if (exact) {
		if (second.next_id != doc->next_id)
			broken();
		for (uint32_t i = 0; i < doc->count; i++)
			if (memcmp(&doc->dev[i], &second.dev[i],
				   sizeof(doc->dev[i])) != 0)
				broken();
		again = eng_state_format(&second);
		if (!again || strcmp(text, again) != 0)
			broken();
		free(again);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *exact = malloc(size ? size : 1);

	if (!exact)
		abort();
	memcpy(exact, data, size);
	memset(&first, 0, sizeof(first));
	eng_state_journal_apply(exact, size, &first, NULL, NULL);
	if (first.count > ENG_STATE_DEVS_MAX)
		broken();
	check_roundtrip(&first, 0);
	if (eng_state_parse(exact, size, &first, NULL, NULL) < 0) {
		free(exact);
		return 0;
	}
	free(exact);
	if (first.count > ENG_STATE_DEVS_MAX)
		broken();
	check_roundtrip(&first, 1);
	return 0;
}
