/* content.c (layer: base): a secret's content (text and files, encrypted or plain): freed and wiped in one place. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Wipes and frees an item's buffer, and clears the item. */
void
bl_item_free(struct bl_item *it)
{
	if (it->buf != NULL)
		bl_free_wipe(it->buf, it->len);
	memset(it, 0, sizeof(*it));
}

/* Wipes and frees everything c holds, and clears it. */
void
bl_content_free(struct bl_content *c)
{
	size_t	 i;

	bl_item_free(&c->text);
	for (i = 0; i < c->nfiles; i++) {
		bl_item_free(&c->files[i].name);
		bl_item_free(&c->files[i].mime);
		bl_item_free(&c->files[i].data);
	}
	free(c->files);
	memset(c, 0, sizeof(*c));
}
