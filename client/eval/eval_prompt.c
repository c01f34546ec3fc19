/* The prompt a generator input stands for: what the model saw, logged as
 * each record's user_message. */
#include "client/eval/eval_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_or(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : dflt;
}

/* Appends "\n\n## title\nbody" with the body's trailing newlines dropped. */
static void section(FILE *f, const char *title, const char *body, bool fenced)
{
	size_t n = strlen(body);
	while (n && body[n - 1] == '\n')
		n--;
	fprintf(f, "\n\n## %s\n%s%.*s%s", title, fenced ? "```python\n" : "", (int)n, body,
		fenced ? "\n```" : "");
}

/* The system message sbx eval asks the generator to send ("system_prompt"
 * in its input; examples/generators/openai_chat.py sends it as given), so
 * that the log and the traces can say what the model was told. */
const char *eval_system_prompt(void)
{
	return "You are an expert Python programmer working with a user on a coding task. "
	       "Write correct, self-contained Python code that does what the task asks. When the "
	       "user shows you your previous code together with compiler messages, test results "
	       "or their own comments, find the cause of the problem and fix the code. Always "
	       "answer with the complete program in a single ```python code block.";
}

/* examples/generators/openai_chat.py renders the same text byte for byte, so
 * the log's user_message is what that generator sent. */
char *eval_render_prompt(const json_t *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	const char *code = str_or(in, "previous_code", "");
	const char *ep = str_or(in, "entry_point", "");
	if (*code)
		fputs("Your previous code for the task below has a problem. Read the feedback, "
		      "correct the code, and answer with the complete corrected program in one "
		      "```python code block.",
		      f);
	else
		fputs("Write Python code that solves the task below. Answer with the complete "
		      "program in one ```python code block.",
		      f);
	if (*ep)
		fprintf(f, " The code must define `%s`.", ep);
	section(f, "Task", str_or(in, "prompt", ""), false);
	if (*code)
		section(f, "Previous code", code, true);
	static const char *const fb[][2] = {{"Compilation feedback", "compilation_feedback"},
					    {"Execution feedback", "execution_feedback"},
					    {"User feedback", "verbal_feedback"}};
	for (size_t i = 0; i < sizeof fb / sizeof fb[0]; i++)
		if (*str_or(in, fb[i][1], ""))
			section(f, fb[i][0], str_or(in, fb[i][1], ""), false);
	fputc('\n', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
