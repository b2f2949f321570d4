/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the assembler (neuron_asm.c) and the container reader
 * (libshim/src/container.c) read alike: a tensor's name, which one writes
 * and the other checks, and the words of a line of text.
 */
#ifndef NEURON_NAMES_H
#define NEURON_NAMES_H

#include <string.h>

/* A tensor name: 1..255 bytes of [A-Za-z0-9_.:/-], without "..". */
static inline int neuron_tensor_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 1 || n > 255 || strstr(s, ".."))
		return 0;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		      ch == ':' || ch == '/' || ch == '-'))
			return 0;
	}
	return 1;
}

/*
 * The next word of the line at *@s (blanks split words, '#' starts a
 * comment): NUL-terminated in place, *@s moved past it; NULL at the end.
 */
static inline char *neuron_next_word(char **s)
{
	char *q = *s, *w;

	while (*q == ' ' || *q == '\t')
		q++;
	if (!*q || *q == '#')
		return NULL;
	w = q;
	while (*q && *q != ' ' && *q != '\t')
		q++;
	if (*q)
		*q++ = '\0';
	*s = q;
	return w;
}

#endif
