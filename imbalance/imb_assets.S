/* imb_assets.S - the HTML page template and the vendored charting libraries
 * (imbalance/web/), inlined into the binary at build time so that the page
 * mpiwatch writes is one self-contained file.  Each asset ends with a NUL. */
	.section .rodata
	.global imb_asset_page
	.global imb_asset_echarts
	.global imb_asset_echarts_gl
imb_asset_page:
	.incbin "imbalance/web/imbalance.html"
	.byte 0
imb_asset_echarts:
	.incbin "imbalance/web/vendor/echarts.min.js"
	.byte 0
imb_asset_echarts_gl:
	.incbin "imbalance/web/vendor/echarts-gl.min.js"
	.byte 0
	.section .note.GNU-stack,"",@progbits
