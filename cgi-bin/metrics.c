/* metrics: GET /api/metrics: the Prometheus metrics, to the settings' token or allowed networks. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_metrics);
}
