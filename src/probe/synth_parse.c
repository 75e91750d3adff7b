#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "probe/synth_parse.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex number at *p (1..16 digits) ended by term; moves *p past term. */
static int take_hex(char **p, char term, uint64_t *v)
{
	char *s = *p;
	uint64_t x = 0;
	int n = 0, d;

	while ((d = hex_digit(*s)) >= 0) {
		if (++n > 16)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
		s++;
	}
	if (n == 0 || *s != term)
		return -EINVAL;
	*v = x;
	*p = s + 1;
	return 0;
}

/* Decimal number at *p ended by a space, newline or NUL; *p stops on the end. */
static int take_dec(char **p, uint64_t *v)
{
	char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		uint64_t d = (uint64_t)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
		s++;
		n++;
	}
	if (n == 0 || (*s != ' ' && *s != '\n' && *s != '\0'))
		return -EINVAL;
	*v = x;
	*p = s;
	return 0;
}

static void chomp(char *line)
{
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
}

static int parse_perms(const char *s, uint32_t *prot, uint32_t *flags)
{
	static const char want[3] = { 'r', 'w', 'x' };
	static const uint32_t bit[3] = { PROT_READ, PROT_WRITE, PROT_EXEC };

	*prot = 0;
	for (int i = 0; i < 3; i++) {
		if (s[i] == want[i])
			*prot |= bit[i];
		else if (s[i] != '-')
			return -EINVAL;
	}
	if (s[3] == 's')
		*flags = MAP_SHARED;
	else if (s[3] == 'p')
		*flags = MAP_PRIVATE;
	else
		return -EINVAL;
	return s[4] == ' ' ? 0 : -EINVAL;
}

int maps_line_parse(char *line, struct maps_entry *e)
{
	char *p = line;
	uint64_t maj, min;

	chomp(line);
	if (take_hex(&p, '-', &e->start) || take_hex(&p, ' ', &e->end) || e->end < e->start)
		return -EINVAL;
	if (strnlen(p, 5) < 5 || parse_perms(p, &e->prot, &e->flags))
		return -EINVAL;
	p += 5;
	if (take_hex(&p, ' ', &e->pgoff) || take_hex(&p, ':', &maj) || take_hex(&p, ' ', &min))
		return -EINVAL;
	if (maj > UINT32_MAX || min > UINT32_MAX || take_dec(&p, &e->ino))
		return -EINVAL;
	e->maj = (uint32_t)maj;
	e->min = (uint32_t)min;
	/* The kernel pads to a column; everything after is the path, spaces included. */
	while (*p == ' ')
		p++;
	e->path = p;
	return 0;
}

int kallsyms_line_parse(char *line, struct ksym_entry *s)
{
	char *p = line, *name, *end;

	chomp(line);
	if (take_hex(&p, ' ', &s->addr) || !*p || p[1] != ' ')
		return -EINVAL;
	s->type = p[0];
	name = p + 2;
	end = name + strcspn(name, " \t");
	if (end == name)
		return -EINVAL;
	s->module = "";
	if (*end) {
		char *mod = end + strspn(end, " \t");
		*end = '\0';
		if (*mod == '[') {
			mod++;
			mod[strcspn(mod, "]")] = '\0';
			s->module = mod;
		}
	}
	s->name = name;
	return 0;
}

/* Next space-separated field of *p, NUL-terminated in place; NULL at the end. */
static char *take_field(char **p)
{
	char *s = *p + strspn(*p, " ");
	if (!*s)
		return NULL;
	char *e = s + strcspn(s, " ");
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

int modules_line_parse(char *line, struct module_entry *m)
{
	char *p = line, *f[6], *end;

	chomp(line);
	for (int i = 0; i < 6; i++)
		if (!(f[i] = take_field(&p)))
			return -EINVAL;
	errno = 0;
	m->size = strtoull(f[1], &end, 10);
	if (errno || *end || end == f[1])
		return -EINVAL;
	if (strncmp(f[5], "0x", 2) != 0)
		return -EINVAL;
	char *a = f[5] + 2;
	if (take_hex(&a, '\0', &m->addr))
		return -EINVAL;
	m->name = f[0];
	return 0;
}

/* Decode the kernel's \ooo escapes (mangle_path) in place. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

int mounts_line_parse(char *line, const char **mnt, const char **type)
{
	char *p = line, *f[3];

	chomp(line);
	for (int i = 0; i < 3; i++)
		if (!(f[i] = take_field(&p)))
			return -EINVAL;
	unescape_octal(f[1]);
	*mnt = f[1];
	*type = f[2];
	return 0;
}

/* Value after "key:" at the start of a line of text, or NULL. */
static const char *status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, klen) && l[klen] == ':')
			return l + klen + 1 + strspn(l + klen + 1, " \t");
	return NULL;
}

int task_status_parse(const char *text, struct task_status *st)
{
	const char *name = status_field(text, "Name");
	const char *tgid = status_field(text, "Tgid");
	const char *ppid = status_field(text, "PPid");

	if (!name || !tgid)
		return -EINVAL;
	size_t n = strcspn(name, "\n");
	if (n >= sizeof(st->name))
		n = sizeof(st->name) - 1;
	memcpy(st->name, name, n);
	st->name[n] = '\0';
	st->tgid = (pid_t)strtol(tgid, NULL, 10);
	st->ppid = ppid ? (pid_t)strtol(ppid, NULL, 10) : -1;
	st->kernel_thread = !status_field(text, "VmPeak") && !status_field(text, "VmSize");
	return st->tgid > 0 ? 0 : -EINVAL;
}
