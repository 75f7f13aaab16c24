/* multicall.h: the mains of cron/ and tools/ under their multi-call names (scripts/multicall.c). */
int	bl_main_cleanup(int, char *[]);
int	bl_main_notify(int, char *[]);
int	bl_main_burnlink_admin(int, char *[]);
