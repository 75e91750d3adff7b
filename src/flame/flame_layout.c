/* Depth-first layout of the frame tree; see flame_layout.h. */
#include "flame/flame_layout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct flame_tree *sort_tree;

static int by_name(const void *a, const void *b)
{
	const struct flame_node *x = &sort_tree->n[*(const uint32_t *)a], *y = &sort_tree->n[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);
	return c ? c : (int)x->kind - (int)y->kind;
}

/* Relink every child list in name order; tmp has room for t->len. */
static void sort_children(struct flame_tree *t, uint32_t *tmp)
{
	sort_tree = t;
	for (uint32_t i = 0; i < t->len; i++) {
		uint32_t k = 0;
		for (uint32_t c = t->n[i].child; c; c = t->n[c].sibling)
			tmp[k++] = c;
		if (k < 2)
			continue;
		qsort(tmp, k, sizeof(*tmp), by_name);
		t->n[i].child = tmp[0];
		for (uint32_t j = 0; j < k; j++)
			t->n[tmp[j]].sibling = j + 1 < k ? tmp[j + 1] : 0;
	}
}

int flame_layout(struct flame_tree *t, struct flame_layout *l)
{
	memset(l, 0, sizeof(*l));
	uint32_t *stack = malloc((size_t)t->len * sizeof(*stack));
	uint64_t *x = malloc((size_t)t->len * sizeof(*x));
	l->b = malloc((size_t)t->len * sizeof(*l->b));
	if (!stack || !x || !l->b) {
		free(stack);
		free(x);
		flame_layout_free(l);
		return -ENOMEM;
	}
	sort_children(t, stack);
	/* Preorder with an explicit stack: children pushed last first. */
	uint32_t sp = 0;
	stack[sp++] = 0;
	x[0] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		l->b[l->n++] = (struct flame_box){ i, t->n[i].depth, x[i] };
		uint64_t at = x[i];
		uint32_t first = sp;
		for (uint32_t c = t->n[i].child; c; c = t->n[c].sibling) {
			x[c] = at;
			at += t->n[c].value;
			stack[sp++] = c;
		}
		for (uint32_t a = first, b = sp; b > a + 1; a++, b--) {
			uint32_t s = stack[a];
			stack[a] = stack[b - 1];
			stack[b - 1] = s;
		}
	}
	free(stack);
	free(x);
	return 0;
}

void flame_layout_free(struct flame_layout *l)
{
	free(l->b);
	memset(l, 0, sizeof(*l));
}
